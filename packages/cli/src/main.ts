/**
 * The `hcc` command line: one binary starts every part of hcc.
 */
import { Command } from 'commander';
import { HccVersion } from '@hcc/control-center';
import { controlCenterCommand } from './commands/control-center.js';
import { managementClusterCommand } from './commands/management-cluster.js';
import { schedulerCommand } from './commands/scheduler.js';
import { syncerCommand } from './commands/syncer.js';
import { upCommand } from './commands/up.js';
import { hypershiftSimCommand } from './commands/hypershift-sim.js';

const program = new Command('hcc')
  .description('hcc, the HostedCluster control center: one front door for a fleet of HyperShift management clusters')
  .version(HccVersion)
  .showHelpAfterError();
program.addCommand(upCommand());
program.addCommand(controlCenterCommand());
program.addCommand(schedulerCommand());
program.addCommand(syncerCommand());
program.addCommand(managementClusterCommand());
program.addCommand(hypershiftSimCommand());

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // User errors (bad flags, bad files, a state dir in use) get one clear line, not a stack trace.
  const e = err as Error & { code?: string };
  const locked = e.code === 'LEVEL_LOCKED' || (e.cause as { code?: string } | undefined)?.code === 'LEVEL_LOCKED';
  const msg = locked ? 'the data directory is in use by another hcc process' : e.message;
  process.stderr.write(`hcc: ${msg}\n`);
  if (process.env.HCC_DEBUG) process.stderr.write(`${e.stack}\n`);
  process.exit(1);
}
