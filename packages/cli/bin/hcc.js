#!/usr/bin/env node
// The hcc command. The TypeScript sources build to ../dist (npm run build).
import { existsSync } from 'node:fs';
const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('hcc: not built yet; run `npm run build` in the repository root first');
  process.exit(1);
}
// A SIGINT/SIGTERM while the modules load (0.1–0.4 s: main.ts loads only the command's own) is
// remembered, not the default kill: a long-running command stops cleanly once it has started
// (lifecycle.ts catchShutdown takes the signal over); anything else still exits as killed
// (128 + signal) after 10 s at most.
const early = { signal: undefined, timer: undefined, onSignal: undefined };
early.onSignal = (signal) => {
  if (early.signal) return;
  early.signal = signal;
  early.timer = setTimeout(() => process.exit(signal === 'SIGINT' ? 130 : 143), 10_000);
  early.timer.unref();
};
const onInt = () => early.onSignal('SIGINT');
const onTerm = () => early.onSignal('SIGTERM');
process.on('SIGINT', onInt);
process.on('SIGTERM', onTerm);
globalThis[Symbol.for('hcc.earlySignals')] = {
  /** Removes the early handlers; returns the signal that came meanwhile, if any. */
  takeOver() {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    if (early.timer) clearTimeout(early.timer);
    return early.signal;
  },
};
await import(main.href);
// A command that is done (or never took the signals over) exits as it would have been killed.
if (early.signal && !globalThis[Symbol.for('hcc.earlySignals')].takenOver) process.exit(early.signal === 'SIGINT' ? 130 : 143);
