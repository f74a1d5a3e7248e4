/**
 * The `hcc` command line: one binary starts every part of hcc.
 */
import { Command } from 'commander';
import { HccVersion } from '@hcc/control-center/version';

/**
 * Every subcommand, in the order help lists them, each loaded on demand: a process loads only
 * the packages of the command it runs (the API server's for `control-center`, the scheduler's
 * for `scheduler`, ...), which roughly halves a process's start on a 2-core machine. `--version`
 * loads none; help and an unknown command load them all.
 */
const commands: Record<string, () => Promise<Command>> = {
  up: async () => (await import('./commands/up.js')).upCommand(),
  'control-center': async () => (await import('./commands/control-center.js')).controlCenterCommand(),
  scheduler: async () => (await import('./commands/scheduler.js')).schedulerCommand(),
  syncer: async () => (await import('./commands/syncer.js')).syncerCommand(),
  'management-cluster': async () => (await import('./commands/management-cluster.js')).managementClusterCommand(),
  'hypershift-sim': async () => (await import('./commands/hypershift-sim.js')).hypershiftSimCommand(),
};

const program = new Command('hcc')
  .description('hcc, the HostedCluster control center: one front door for a fleet of HyperShift management clusters')
  .version(HccVersion)
  .showHelpAfterError();
const asked = process.argv[2];
const load = asked === '--version' || asked === '-V' ? [] : asked !== undefined && Object.hasOwn(commands, asked) ? [asked] : Object.keys(commands);
for (const c of await Promise.all(load.map((name) => commands[name]!()))) {
  // A subcommand does not inherit the root's setting: a bad or unknown flag points to the
  // command's own help, as kubectl's `See 'kubectl get --help' for usage.`
  program.addCommand(c.showHelpAfterError(`See 'hcc ${c.name()} --help' for usage.`));
}

// `hcc` alone prints its help and succeeds, as `kubectl` alone does (commander would exit 1).
if (process.argv.length <= 2) {
  program.outputHelp();
  process.exit(0);
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // User errors (bad flags, bad files, a state dir in use) get one clear line, not a stack trace.
  const e = err as Error & { code?: string };
  const cause = e.cause as { code?: string; message?: string } | undefined;
  const locked = e.code === 'LEVEL_LOCKED' || cause?.code === 'LEVEL_LOCKED';
  // abstract-level says only "Database failed to open"; why (a read-only or corrupt data dir) is its cause.
  const why = e.code === 'LEVEL_DATABASE_NOT_OPEN' && typeof cause?.message === 'string' && cause.message ? `: ${cause.message}` : '';
  // LevelDB's lock error names its LOCK file (`IO error: lock /path/LOCK: Resource temporarily unavailable`).
  const lockedDir = locked ? /lock (.+)\/LOCK\b/.exec(String(cause?.message ?? e.message))?.[1] : undefined;
  const inUse = e.code === 'EADDRINUSE' ? '; another process listens there: choose another --port (or --metrics-port for /metrics and the probes), or 0 for a free one' : '';
  const msg = locked
    ? `the data directory ${lockedDir ? `${lockedDir} ` : ''}is in use by another hcc process (it holds the directory's LOCK file; stop it, or give this one another --data-dir)`
    : `${e.message}${why}${inUse}`;
  process.stderr.write(`hcc: ${msg}\n`);
  if (process.env.HCC_DEBUG) process.stderr.write(`${e.stack}\n`);
  process.exit(1);
}
