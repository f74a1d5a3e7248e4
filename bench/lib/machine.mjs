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
    node: process.version,
    dataRoot,
    dataRootFs: fsType(dataRoot),
  };
}

/** One line for the table's header and the README. */
export function machineLine(m) {
  return `${m.logicalCores} × ${m.cpuModel}${m.cgroupCpuLimit ? ` (cgroup limit ${m.cgroupCpuLimit} CPUs)` : ''}, ${m.memoryGiB} GiB RAM, ${m.os}, Node.js ${m.node}, data on ${m.dataRootFs} (${m.dataRoot})`;
}
