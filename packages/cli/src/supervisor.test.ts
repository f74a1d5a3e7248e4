import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastErrorLine } from './supervisor.js';

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
