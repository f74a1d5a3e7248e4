import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastErrorLine, nextRestart, StableMs } from './supervisor.js';

describe('lastErrorLine', () => {
  it("finds the last `hcc: ` line of this start's output, not an earlier start's", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-sup-'));
    try {
      const log = path.join(dir, 'control-center.log');
      writeFileSync(log, '{"level":30,"msg":"serving"}\nhcc: an earlier start failed\n');
      const from = statSync(log).size;
      expect(lastErrorLine(log, from)).toBe('');
      appendFileSync(log, '{"level":30,"msg":"starting"}\nhcc: the data directory is in use by another hcc process\n');
      expect(lastErrorLine(log, from)).toBe('the data directory is in use by another hcc process');
      expect(lastErrorLine(path.join(dir, 'missing.log'))).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('nextRestart (hcc up restarting a child that exited)', () => {
  it('backs off 500 ms doubling to 10 s and gives up after 10 short runs in a row', () => {
    const delays: number[] = [];
    let restarts = 0;
    for (let i = 0; i < 10; i++) {
      const next = nextRestart(restarts, 1_000);
      if (next === 'give-up') throw new Error(`gave up after ${i}`);
      delays.push(next.delayMs);
      restarts = next.restarts;
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    expect(nextRestart(restarts, 1_000)).toBe('give-up');
  });

  it('starts over after a run of a minute or more: crashes days apart never add up to giving up', () => {
    expect(nextRestart(9, StableMs)).toEqual({ restarts: 1, delayMs: 500 });
    expect(nextRestart(10, 3_600_000)).toEqual({ restarts: 1, delayMs: 500 });
    expect(nextRestart(10, StableMs - 1)).toBe('give-up');
  });
});
