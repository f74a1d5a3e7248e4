import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDir } from './fs.js';

describe('ensureDir', () => {
  it('creates missing levels with the mode, and accepts an existing directory', () => {
    const base = mkdtempSync(path.join(tmpdir(), 'hcc-fs-'));
    try {
      const deep = path.join(base, 'a', 'b', 'c');
      ensureDir(deep, 0o700);
      expect(statSync(deep).isDirectory()).toBe(true);
      expect(statSync(path.join(base, 'a')).mode & 0o777).toBe(0o700);
      ensureDir(deep);
      ensureDir(base);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('fails with ENOTDIR when a level is a file', () => {
    const base = mkdtempSync(path.join(tmpdir(), 'hcc-fs-'));
    try {
      writeFileSync(path.join(base, 'f'), 'x');
      expect(() => ensureDir(path.join(base, 'f', 'sub'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
      expect(() => ensureDir(path.join(base, 'f'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === 'linux')('fails under /proc instead of looping forever (Node recursive mkdir does)', () => {
    expect(() => ensureDir('/proc/hcc-no-such-dir/data')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
