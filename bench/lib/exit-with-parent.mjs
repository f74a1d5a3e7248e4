/**
 * Preloaded (`node --import`) into every process bench/lib/procs.mjs starts, which it starts with
 * an IPC channel: when that channel closes (the bench is gone, even SIGKILLed), this process gets
 * SIGTERM, so it stops as on `kill`, through its own handler — `hcc up` then stops every process it
 * forked. hcc's commands other than `hcc up` already stop on 'disconnect' by themselves
 * (packages/cli/src/lifecycle.ts); `hcc up` and the bench's helper scripts do not.
 *
 * The channel does not keep the process alive (a script that is done still exits), and this
 * preload is taken out of process.execArgv so the processes this one forks (`hcc up`'s, which have
 * their own channel to it) do not inherit it.
 */
import { fileURLToPath } from 'node:url';

/** process.execArgv without the `--import` of this file. */
function withoutThisPreload(execArgv) {
  const self = fileURLToPath(import.meta.url);
  const isSelf = (v) => v === import.meta.url || v === self;
  const out = [];
  for (let i = 0; i < execArgv.length; i++) {
    if (execArgv[i] === '--import' && isSelf(execArgv[i + 1])) i++;
    else if (!(execArgv[i].startsWith('--import=') && isSelf(execArgv[i].slice('--import='.length)))) out.push(execArgv[i]);
  }
  return out;
}

if (process.send) {
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.channel?.unref();
}
process.execArgv.splice(0, process.execArgv.length, ...withoutThisPreload(process.execArgv));
