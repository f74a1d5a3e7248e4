/**
 * What the bench ran on: CPU (model, logical cores, cgroup CPU limit), memory, OS, Node.js, and
 * the filesystem the data directories live on (fsync cost depends on it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

function tryRead(file) {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function fsType(dir) {
  try {
    return execFileSync('findmnt', ['-n', '-o', 'FSTYPE,SOURCE', '-T', dir], { encoding: 'utf8' }).trim().replace(/\s+/, ' on ');
  } catch {
    return 'unknown';
  }
}

/** A description of this machine. */
export function machineInfo(dataRoot) {
  const cpus = os.cpus();
  const cpuMax = tryRead('/sys/fs/cgroup/cpu.max');
  let cgroupCpus;
  if (cpuMax && !cpuMax.startsWith('max')) {
    const [quota, period] = cpuMax.split(' ').map(Number);
    cgroupCpus = quota / period;
  }
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    logicalCores: cpus.length,
    availableParallelism: os.availableParallelism(),
    cgroupCpuLimit: cgroupCpus ?? null,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    /** Nominal clock (MHz) from /proc/cpuinfo when the OS reports none; null when unknown. */
    cpuMHz: cpus[0]?.speed || Number(/^cpu MHz\s*:\s*([\d.]+)/m.exec(tryRead('/proc/cpuinfo') ?? '')?.[1]) || null,
    node: process.version,
    dataRoot,
    dataRootFs: fsType(dataRoot),
  };
}

/** One line for the table's header and the README. */
export function machineLine(m) {
  return `${m.logicalCores} × ${m.cpuModel}${m.cpuMHz ? ` @ ${m.cpuMHz} MHz` : ''}${m.availableParallelism && m.availableParallelism < m.logicalCores ? ` (${m.availableParallelism} available to this process)` : ''}${m.cgroupCpuLimit ? ` (cgroup limit ${m.cgroupCpuLimit} CPUs)` : ''}, ${m.memoryGiB} GiB RAM, ${m.os}, Node.js ${m.node}, data on ${m.dataRootFs} (${m.dataRoot})`;
}

/**
 * The code that was measured: the git commit of the checkout and whether it had uncommitted
 * changes (tracked files only), or nulls outside a git checkout.
 * @returns `{ commit: string | null, dirty: boolean | null }`
 */
export function codeInfo(repoDir) {
  try {
    const commit = execFileSync('git', ['-C', repoDir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const status = execFileSync('git', ['-C', repoDir, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit, dirty: status.trim() !== '' };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** "commit abc1234" (+ " with uncommitted changes"), or "" when unknown. */
export function codeLine(c) {
  return c.commit ? `commit ${c.commit.slice(0, 7)}${c.dirty ? ' with uncommitted changes' : ''}` : '';
}
