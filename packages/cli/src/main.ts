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

await program.parseAsync(process.argv);
