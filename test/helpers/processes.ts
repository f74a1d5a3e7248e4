/**
 * Starts real hcc processes for end-to-end tests — `hcc up`, `hcc control-center` or any subcommand — on free
 * ports in a temporary state dir, and stops them (and removes the dir) afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import path from 'node:path';
import { hccBin, tempDir } from './tools.js';

/** A running `hcc up`. */
export interface HccUp {
  stateDir: string;
  kubeconfig: string;
  mgmtKubeconfig(name: string): string;
  proc: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Waits for `marker` on stdout or for the process to exit. */
function waitForOutput(proc: ChildProcess, marker: string | RegExp, timeoutMs: number, collected: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hcc did not print ${marker} within ${timeoutMs} ms:\n${collected()}`)), timeoutMs);
    const check = () => {
      const out = collected();
      if (typeof marker === 'string' ? out.includes(marker) : marker.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout!.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hcc exited with code ${code} before it was up:\n${collected()}`));
    });
  });
}

/** Stops a process with SIGTERM (SIGKILL after graceMs); resolves when it exited. */
export function stopProcess(proc: ChildProcess, graceMs = 15_000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

/** Spawns `hcc ARGS` (any subcommand); its stdout and stderr accumulate in `output()`. Stop it with {@link stopProcess}. */
export function spawnHcc(args: string[]): { proc: ChildProcess; output: () => string } {
  let out = '';
  const proc = spawn(process.execPath, [hccBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { proc, output: () => out };
}

/**
 * {@link spawnHcc}, then waits until its stdout matches `ready`.
 * @throws when it exits first or `ready` does not show within timeoutMs (the process is stopped)
 */
export async function startHcc(args: string[], ready: string | RegExp, timeoutMs = 60_000): Promise<{ proc: ChildProcess; output: () => string }> {
  const p = spawnHcc(args);
  try {
    await waitForOutput(p.proc, ready, timeoutMs, p.output);
  } catch (err) {
    await stopProcess(p.proc);
    throw err;
  }
  return p;
}

/** Runs `hcc up` with the given extra flags and waits until it says it is up. */
export async function startHccUp(args: string[] = [], timeoutMs = 90_000): Promise<HccUp> {
  const { dir, cleanup } = tempDir('hcc-up-');
  let out = '';
  const proc = spawn(process.execPath, [hccBin, 'up', '--state-dir', dir, '--heartbeat-interval', '1', '--available-delay', '500', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  try {
    await waitForOutput(proc, 'hcc is up', timeoutMs, () => out);
  } catch (e) {
    await stopProcess(proc);
    // The logs go with the temp dir: the end of each goes into the error, so a start that fails
    // only under a loaded CI run can be told apart afterwards.
    const stateDir = args.lastIndexOf('--state-dir') >= 0 ? args[args.lastIndexOf('--state-dir') + 1]! : dir;
    const logs = logTails(path.join(stateDir, 'logs'));
    cleanup();
    if (logs && e instanceof Error) e.message += `\n${logs}`;
    throw e;
  }
  return {
    stateDir: dir,
    kubeconfig: path.join(dir, 'admin.kubeconfig'),
    mgmtKubeconfig: (name) => path.join(dir, 'management-clusters', `${name}.kubeconfig`),
    proc,
    output: () => out,
    stop: async () => {
      await stopProcess(proc);
      cleanup();
    },
  };
}

/** The last 25 lines of every `*.log` file in `dir`, each under its name ('' when there are none). */
function logTails(dir: string): string {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.log')).sort();
  } catch {
    return '';
  }
  return names
    .map((n) => {
      let text = '';
      try {
        text = readFileSync(path.join(dir, n), 'utf8');
      } catch (err) {
        text = String(err);
      }
      return `--- ${n} (last 25 lines) ---\n${text.trimEnd().split('\n').slice(-25).join('\n')}`;
    })
    .join('\n');
}

/** A running `hcc control-center`. */
export interface ControlCenterProcess {
  dir: string;
  kubeconfig: string;
  /** Kubeconfig of the scheduler's identity (group hcc:schedulers: may place HostedClusters). */
  schedulerKubeconfig: string;
  url: string;
  proc: ChildProcess;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** Stops the process but keeps the data dir (for restart tests). */
  kill(signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs `hcc control-center` on a free port. `dir` reuses a data dir (restarts); `maxFileKiB` runs it
 * under `ulimit -f` (no file it writes may grow past that many KiB: writes past it fail with EFBIG,
 * as on a full disk; Node ignores SIGXFSZ).
 */
export async function startControlCenterProcess(opts: { dir?: string; port?: number; extraArgs?: string[]; maxFileKiB?: number } = {}): Promise<ControlCenterProcess> {
  const t = opts.dir ? { dir: opts.dir, cleanup: () => {} } : tempDir('hcc-cc-');
  const kubeconfig = path.join(t.dir, 'admin.kubeconfig');
  const schedulerKubeconfig = path.join(t.dir, 'scheduler.kubeconfig');
  let out = '';
  const args = [hccBin, 'control-center', '--data-dir', path.join(t.dir, 'data'), '--port', String(opts.port ?? 0), '--kubeconfig', kubeconfig, '--scheduler-kubeconfig', schedulerKubeconfig, ...(opts.extraArgs ?? [])];
  const proc =
    opts.maxFileKiB === undefined
      ? spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -f ${opts.maxFileKiB} && exec "$@"`, 'bash', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  await waitForOutput(proc, /"msg":"control center serving"/, 30_000, () => out);
  const url = /"url":"([^"]+)"/.exec(out)![1]!;
  return {
    dir: t.dir,
    kubeconfig,
    schedulerKubeconfig,
    url,
    proc,
    output: () => out,
    kill: async (signal: NodeJS.Signals = 'SIGKILL') => {
      if (proc.exitCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill(signal);
      await exited;
    },
    stop: async () => {
      await stopProcess(proc);
      t.cleanup();
    },
  };
}

/** A running `hcc scheduler`. */
export interface SchedulerProcess {
  /** Base URL of its ops server: `${url}/metrics`, `/healthz`, `/readyz`. */
  url: string;
  proc: ChildProcess;
  output(): string;
  /** Sends a signal (default SIGKILL) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then SIGKILL after a grace period. */
  stop(): Promise<void>;
  /** The value of one unlabelled metric sample line, e.g. `hcc_pending_hostedclusters`, or undefined. */
  metric(nameWithLabels: string): Promise<number | undefined>;
}

/** Runs `hcc scheduler` against a control center kubeconfig with extra flags; waits until it serves /metrics. */
export async function startSchedulerProcess(opts: { kubeconfig: string; args?: string[] }): Promise<SchedulerProcess> {
  let out = '';
  const proc = spawn(process.execPath, [hccBin, 'scheduler', '--kubeconfig', opts.kubeconfig, '--metrics-port', '0', ...(opts.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  try {
    await waitForOutput(proc, /"msg":"scheduler started"/, 30_000, () => out);
  } catch (e) {
    await stopProcess(proc);
    throw e;
  }
  const url = /"metrics":"([^"]+)\/metrics"/.exec(out)![1]!;
  return {
    url,
    proc,
    output: () => out,
    kill: async (signal: NodeJS.Signals = 'SIGKILL') => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill(signal);
      await exited;
    },
    stop: () => stopProcess(proc),
    metric: async (name) => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line ? Number(line.slice(name.length + 1)) : undefined;
    },
  };
}

/**
 * Starts `hcc management-cluster --name NAME` (data and kubeconfigs under `dir`) that enforces the
 * RBAC documents `policy` (`--authorization-policy`) for one token user (`--token-file`), and
 * writes a kubeconfig for that user: the admin kubeconfig with the user's token.
 * @returns the process, the admin kubeconfig and the user's kubeconfig
 */
export async function startRestrictedManagementCluster(
  dir: string,
  name: string,
  opts: { user: string; groups?: string; policy: string },
): Promise<{ proc: ChildProcess; output: () => string; adminKubeconfig: string; userKubeconfig: string }> {
  const token = `${name}-restricted-token-0123456789`;
  const tokenFile = path.join(dir, `${name}-tokens.csv`);
  writeFileSync(tokenFile, `${token},${opts.user},uid-${name}-restricted,"${opts.groups ?? ''}"\n`);
  const policyFile = path.join(dir, `${name}-policy.yaml`);
  writeFileSync(policyFile, opts.policy);
  const adminKubeconfig = path.join(dir, `${name}-admin.kubeconfig`);
  const mc = await startHcc(['management-cluster', '--name', name, '--data-dir', path.join(dir, name), '--kubeconfig', adminKubeconfig, '--token-file', tokenFile, '--authorization-policy', policyFile], /"msg":"management cluster ready"/);
  const userKubeconfig = path.join(dir, `${name}-restricted.kubeconfig`);
  const config = parse(readFileSync(adminKubeconfig, 'utf8'));
  config.users[0].user = { token };
  writeFileSync(userKubeconfig, stringify(config));
  return { ...mc, adminKubeconfig, userKubeconfig };
}
