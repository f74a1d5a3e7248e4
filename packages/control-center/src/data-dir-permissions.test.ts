/**
 * The data dir holds every Secret (pull secrets, admin kubeconfigs, kubeadmin passwords) in plain
 * JSON: the control center makes it, or tightens it, to 0700, as etcd asks of its data dir.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startControlCenter } from './control-center.js';

describe('data dir permissions', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('creates a new data dir 0700 and tightens an existing 0755 one, saying so', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'hcc-perm-'));
    dirs.push(base);
    const fresh = path.join(base, 'fresh', 'data');
    const existing = path.join(base, 'existing');
    mkdirSync(existing);
    chmodSync(existing, 0o755);
    const lines: { msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    for (const dataDir of [fresh, existing]) {
      const cc = await startControlCenter({ dataDir, port: 0, tls: false, logger });
      await cc.close();
      expect(statSync(dataDir).mode & 0o777, dataDir).toBe(0o700);
    }
    expect(lines.filter((l) => l.msg.startsWith('data dir was readable by others'))).toHaveLength(1);
  });

  it('names the data dir and the flag when the dir cannot be created (a read-only working dir in a container)', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'hcc-perm-'));
    dirs.push(base);
    writeFileSync(path.join(base, 'file'), '');
    const dataDir = path.join(base, 'file', 'data');
    await expect(startControlCenter({ dataDir, port: 0, tls: false, logger: pino({ enabled: false }) })).rejects.toThrow(
      `the data dir ${dataDir} cannot be created (ENOTDIR: not a directory, mkdir '${dataDir}'): give a writable one with --data-dir (and --kubeconfig)`,
    );
  });
});
