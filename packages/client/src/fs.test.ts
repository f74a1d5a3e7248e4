import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDir, writeFileAtomic } from './fs.js';

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

describe('writeFileAtomic', () => {
  it('replaces the file whole, with the mode, leaving no temporary file; a failed write leaves the old content', () => {
    const base = mkdtempSync(path.join(tmpdir(), 'hcc-fs-'));
    try {
      const file = path.join(base, 'processes.json');
      writeFileAtomic(file, '{"a":1}\n', 0o600);
      writeFileAtomic(file, '{"a":2}\n', 0o600);
      expect(readFileSync(file, 'utf8')).toBe('{"a":2}\n');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(base)).toEqual(['processes.json']);
      // The rename cannot replace a directory: the old content stays, and no temporary file.
      const dir = path.join(base, 'taken');
      mkdirSync(dir);
      expect(() => writeFileAtomic(dir, 'x')).toThrow();
      expect(readdirSync(base).sort()).toEqual(['processes.json', 'taken']);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
