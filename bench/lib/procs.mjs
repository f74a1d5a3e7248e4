/**
 * Starts real hcc processes (the CLI in packages/cli/bin/hcc.js) and helper processes for the
 * bench, each with its output in a log file, and stops them through a Scope. Also reads a
 * process's memory and CPU time from /proc (Linux).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { trackChild, trackDir } from './cleanup.mjs';
import { progress } from './progress.mjs';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const hccBin = path.join(repoRoot, 'packages/cli/bin/hcc.js');
/** The preload (`--import`) that stops a process when its channel to the bench closes. */
const exitWithParent = new URL('./exit-with-parent.mjs', import.meta.url).href;

/** Process-wide settings chosen on the command line (bench.mjs sets them). */
export const settings = {
  /** Parent of every temporary directory (data dirs live here: same filesystem for hcc and the level baseline). */
  dataRoot: os.tmpdir(),
  /** When set, hcc processes run with `--cpu-prof` and write .cpuprofile files here. */
  cpuProfDir: undefined,
  /** Keep temp dirs (and logs) after the run. */
  keep: false,
};

/** Called with an Error when a started process exits by itself with an error (see failOnUnexpectedExit). */
const exitListeners = new Set();

/**
 * `promise`, or a rejection as soon as a process started by {@link startProcess} after it was
 * ready exits by itself (not stopped or killed by the bench) with a non-zero code or a signal:
 * a scenario waiting for placements or events then fails at once, naming the process and its
 * last output, instead of when its own wait times out.
 */
export function failOnUnexpectedExit(promise) {
  let listener;
  const exited = new Promise((_, reject) => exitListeners.add((listener = reject)));
  return Promise.race([promise, exited]).finally(() => exitListeners.delete(listener));
}

/**
 * The line of a process's output that most likely says why it failed (the last one naming an
 * error), else its last non-empty line; at most 300 characters.
 */
export function failureLine(output) {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.findLast((l) => /error|ENOSPC|EMFILE|EACCES|no space|too many open files|cannot|failed/i.test(l)) ?? lines.at(-1) ?? '(no output)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Where a process's log is, and whether it outlives the run. */
function logHint(logFile) {
  return settings.keep ? `; its log: ${logFile}` : `; its log ${logFile} is removed with the temp dir (--keep keeps it)`;
}

/**
 * A fresh temporary directory in settings.dataRoot (which must exist: bench.mjs checks
 * `--data-dir` up front), removed when scope closes (unless --keep).
 */
export function tempDir(scope, prefix) {
  // A scenario that failed and was cleaned up may still run on in the background: nothing new.
  if (scope.closed) throw new Error('scope already closed');
  const dir = mkdtempSync(path.join(settings.dataRoot, `hcc-bench-${prefix}-`));
  if (!settings.keep) {
    const remove = trackDir(dir);
    scope.defer(remove);
  } else progress(`keeping ${dir} (--keep)`);
  return dir;
}

/**
 * Spawns `node <script> ...args` with stdout and stderr appended to logFile, and waits until the
 * output matches `ready` (a string or RegExp). Stopped (SIGTERM, then SIGKILL) when scope closes,
 * and by itself (SIGTERM, bench/lib/exit-with-parent.mjs) when the bench is gone.
 * `onOutput(text)` sees every piece of output as it arrives.
 * @returns the process, the matched output and a stop function
 * @throws when the process exits or prints nothing matching within timeoutMs
 */
export async function startProcess(scope, { name, script, args, logFile, ready, timeoutMs = 60_000, env = {}, nodeArgs = [], onOutput }) {
  if (scope.closed) throw new Error(`scope already closed: ${name} not started`);
  mkdirSync(path.dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile, { flags: 'a' });
  const execArgs = [...nodeArgs];
  if (settings.cpuProfDir && script === hccBin) {
    // Not allowed in NODE_OPTIONS; `hcc up` passes its execArgv on to the children it forks.
    mkdirSync(settings.cpuProfDir, { recursive: true });
    execArgs.push('--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`);
  }
  // An IPC channel, and the preload that stops the process when it closes: so nothing this
  // starts outlives the bench, even when the bench is SIGKILLed and its exit-time kill never runs.
  execArgs.unshift('--import', exitWithParent);
  const proc = spawn(process.execPath, [...execArgs, script, ...args], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, ...env } });
  trackChild(proc);
  let tail = '';
  const onData = (d) => {
    log.write(d);
    onOutput?.(d.toString());
    tail = (tail + d.toString()).slice(-256 * 1024);
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  const stop = () => stopProcess(proc).finally(() => log.end());
  scope.defer(stop);
  const matched = await new Promise((resolve, reject) => {
    const test = () => (typeof ready === 'string' ? tail.includes(ready) : ready.test(tail));
    const timer = setTimeout(() => fail(new Error(`${name} printed nothing matching ${ready} within ${timeoutMs} ms${logHint(logFile)}:\n${tail.slice(-2000)}`)), timeoutMs);
    const check = () => {
      if (!test()) return;
      done();
      resolve(tail);
    };
    const onExit = (code, signal) => fail(new Error(`${name} exited (${signal ?? `code ${code}`}) before it printed what the bench waits for: ${failureLine(tail)}${logHint(logFile)}\n${tail.slice(-2000)}`));
    const done = () => {
      clearTimeout(timer);
      proc.stdout.off('data', check);
      proc.stderr.off('data', check);
      proc.off('exit', onExit);
    };
    const fail = (err) => {
      done();
      reject(err);
    };
    proc.stdout.on('data', check);
    proc.stderr.on('data', check);
    proc.once('exit', onExit);
  });
  proc.once('exit', (code, signal) => {
    if (proc.stoppedByBench || code === 0) return;
    const err = new Error(`${name} (pid ${proc.pid}) exited unexpectedly (${signal ?? `code ${code}`}): ${failureLine(tail)}${logHint(logFile)}\n${tail.slice(-2000)}`);
    for (const l of exitListeners) l(err);
  });
  return { proc, pid: proc.pid, output: () => tail, matched, stop };
}

/** SIGTERM, then SIGKILL after graceMs; resolves when the process exited. */
export function stopProcess(proc, graceMs = 15_000) {
  proc.stoppedByBench = true;
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

/** Kills a process with a signal (default SIGKILL) and waits for it to exit. */
export function killProcess(proc, signal = 'SIGKILL') {
  proc.stoppedByBench = true;
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill(signal);
  });
}

/**
 * `hcc control-center` on a free loopback port with its own data dir; the admin kubeconfig and
 * the scheduler's (the only identity allowed to set the placement label) are written there.
 * @returns url, kubeconfig paths, data dir, pid and stop/kill functions
 */
export async function startControlCenter(scope, { tls = true, dir, name = 'control-center', extraArgs = [] } = {}) {
  const base = dir ?? tempDir(scope, 'cc');
  const kubeconfig = path.join(base, 'admin.kubeconfig');
  const schedulerKubeconfig = path.join(base, 'scheduler.kubeconfig');
  const p = await startProcess(scope, {
    name,
    script: hccBin,
    args: [
      'control-center', '--data-dir', path.join(base, 'data'), '--port', '0', '--kubeconfig', kubeconfig,
      '--scheduler-kubeconfig', schedulerKubeconfig, ...(tls ? [] : ['--no-tls']), ...extraArgs,
    ],
    logFile: path.join(base, 'logs', `${name}.log`),
    ready: /"msg":"control center serving"[^\n]*\n/,
    timeoutMs: 120_000,
  });
  const line = p.matched.split('\n').find((l) => l.includes('"msg":"control center serving"'));
  const url = JSON.parse(line).url;
  return { ...p, url, kubeconfig, schedulerKubeconfig, dir: base };
}

/** `hcc scheduler` against a control center; resolves once its caches are synced. */
export async function startScheduler(scope, { kubeconfig, dir, extraArgs = [] }) {
  return startProcess(scope, {
    name: 'scheduler',
    script: hccBin,
    args: ['scheduler', '--kubeconfig', kubeconfig, ...extraArgs],
    logFile: path.join(dir, 'logs', 'scheduler.log'),
    ready: '"msg":"caches synced; scheduling"',
    timeoutMs: 60_000,
  });
}

/** Resident set size now and at its peak, in bytes, from /proc/<pid>/status. */
export function memoryOf(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN) * 1024;
  return { rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
}

const clockTicks = 100; // USER_HZ on Linux

/** CPU time (user + system) a process used so far, in milliseconds, from /proc/<pid>/stat. */
export function cpuTimeMsOf(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

/** PIDs of the direct children of a process (for `hcc up`'s forks). */
export function childPidsOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Busy CPU time of the whole machine so far (all cores, in milliseconds), from /proc/stat. */
export function machineBusyMs() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
  return ((user + nice + system + irq + softirq + (steal ?? 0)) * 1000) / clockTicks;
}

/**
 * CPU time (ms) used so far by a process and all its descendants, including descendants that
 * already exited and were reaped (their time is in the parent's cutime/cstime).
 */
export function treeCpuMs(rootPid) {
  const stats = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(d), { ppid: Number(f[1]), ms: ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / clockTicks });
    } catch {
      // exited meanwhile
    }
  }
  const children = new Map();
  for (const [pid, s] of stats) {
    if (!children.has(s.ppid)) children.set(s.ppid, []);
    children.get(s.ppid).push(pid);
  }
  let total = 0;
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop();
    total += stats.get(pid)?.ms ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/**
 * Samples, every intervalMs, how much CPU the rest of the machine uses besides this process tree
 * (other users of a shared machine), in % of one core. stop() returns the samples.
 */
export function otherLoadSampler(intervalMs = 2000) {
  const samples = [];
  let m = machineBusyMs();
  let t = treeCpuMs(process.pid);
  let at = performance.now();
  const timer = setInterval(() => {
    const m2 = machineBusyMs();
    const t2 = treeCpuMs(process.pid);
    const now = performance.now();
    samples.push(Math.max(0, ((m2 - m - (t2 - t)) / (now - at)) * 100));
    m = m2;
    t = t2;
    at = now;
  }, intervalMs);
  timer.unref();
  return {
    /** Samples so far (does not stop). */
    peek: () => [...samples],
    stop: () => {
      clearInterval(timer);
      return samples;
    },
  };
}

/**
 * The bare-fastify baseline server (bench/lib/bare-fastify.mjs) answering `doc` on GET and POST
 * /obj, with the serving certificate in `pkiDir` (server.key, server.crt, ca.crt) when tls.
 * @returns the process, and an endpoint like kube.mjs endpointOf() gives
 */
export async function startBareFastify(scope, { tls, docFile, pkiDir, logFile }) {
  const tlsArgs = tls ? [path.join(pkiDir, 'server.key'), path.join(pkiDir, 'server.crt')] : [];
  const p = await startProcess(scope, {
    name: 'bare-fastify',
    script: fileURLToPath(new URL('./bare-fastify.mjs', import.meta.url)),
    args: [docFile, ...tlsArgs],
    logFile,
    ready: /"url":"[^"]+"/,
  });
  const url = new URL(JSON.parse(p.matched.split('\n').find((l) => l.includes('"url"'))).url);
  const ep = { origin: url.origin, tls, host: url.hostname, port: Number(url.port), ca: tls ? readFileSync(path.join(pkiDir, 'ca.crt')) : undefined, headers: { accept: 'application/json' } };
  return { ...p, ep };
}

/** A short name for an hcc process from its command line, e.g. `syncer mgmt-1`, `control-center`. */
export function hccProcessName(pid) {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const i = args.findIndex((a) => a.endsWith('main.js') || a.endsWith('hcc.js'));
    const cmd = args[i + 1] ?? 'unknown';
    const n = args.indexOf('--name');
    return n >= 0 ? `${cmd} ${args[n + 1]}` : cmd;
  } catch {
    return String(pid);
  }
}
