/**
 * Storage trouble, end to end. A control center whose storage fails (here: no file may grow past 1 MiB, so LevelDB's log write
 * fails with EFBIG, as on a full disk) answers the failed write 500, logs the failure at fatal and
 * exits 1, so that its supervisor restarts it, instead of serving on with every write refused and
 * /readyz still ok. After a restart on the same data dir, every write answered 201 is there, none
 * answered 500 is, and writes work again. A data dir that lost committed writes (its log deleted)
 * is refused at start with one line saying so, until `--accept-storage-loss`, which serves what is
 * left with resourceVersions going on after every one handed out before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';
import { hccBin, kubectl, tempDir } from './helpers/tools.js';

describe('storage failure', () => {
  const scratch = tempDir('hcc-storage-failure-');
  const procs: ControlCenterProcess[] = [];
  afterAll(async () => {
    // Newest first: a restart reuses its predecessor's data dir, which that one's stop() removes.
    for (const p of [...procs].reverse()) await p.stop();
    scratch.cleanup();
  });

  it('exits 1 on a failed write, loses nothing acknowledged, and works again after a restart', async () => {
    const first = await startControlCenterProcess({ maxFileKiB: 1024 });
    procs.push(first);
    const exited = new Promise<number | null>((r) => first.proc.once('exit', (code) => r(code)));
    const value = path.join(scratch.dir, 'value');
    writeFileSync(value, 'x'.repeat(100 * 1024));
    const acknowledged: string[] = [];
    let refused: { name: string; stderr: string } | undefined;
    for (let i = 0; i < 30 && !refused; i++) {
      const name = `cm-${i}`;
      const r = await kubectl('1.35', first.kubeconfig, ['create', 'configmap', name, '-n', 'default', `--from-file=v=${value}`]);
      if (r.code === 0) acknowledged.push(name);
      else refused = { name, stderr: r.stderr };
    }
    expect(refused, 'a write past the file size limit is refused').toBeDefined();
    expect(refused!.stderr).toMatch(/InternalError|Internal error|internal error/i);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(await exited).toBe(1);
    const fatal = first.output().split('\n').find((l) => l.includes('"msg":"storage failed'));
    expect(fatal, first.output()).toBeDefined();
    expect(JSON.parse(fatal!)).toMatchObject({ level: 60, err: { message: expect.stringMatching(/File too large|EFBIG|IO error/i) } });

    const second = await startControlCenterProcess({ dir: first.dir });
    procs.push(second);
    const names = await kubectl('1.35', second.kubeconfig, ['get', 'configmaps', '-n', 'default', '-o', 'name']);
    expect(names.code, names.stderr).toBe(0);
    const stored = names.stdout.split('\n').filter((l) => l.startsWith('configmap/cm-')).map((l) => l.slice('configmap/'.length));
    expect(stored.sort()).toEqual([...acknowledged].sort());
    const again = await kubectl('1.35', second.kubeconfig, ['create', 'configmap', 'after-restart', '-n', 'default', '--from-literal=v=1']);
    expect(again.code, again.stderr).toBe(0);
  });

  it('refuses a data dir that lost committed writes, and serves what is left with --accept-storage-loss', async () => {
    const cc = await startControlCenterProcess();
    procs.push(cc);
    const list = { apiVersion: 'v1', kind: 'List', items: Array.from({ length: 50 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `keep-${i}`, namespace: 'default' }, data: { v: 'x'.repeat(1000) } })) };
    const applied = await kubectl('1.35', cc.kubeconfig, ['apply', '-f', '-'], { input: JSON.stringify(list) });
    expect(applied.code, applied.stderr).toBe(0);
    const rv = await kubectl('1.35', cc.kubeconfig, ['get', 'configmap', 'keep-49', '-n', 'default', '-o', 'jsonpath={.metadata.resourceVersion}']);
    const handedOut = Number(rv.stdout);
    expect(handedOut).toBeGreaterThan(50);
    await cc.kill('SIGTERM');
    const data = path.join(cc.dir, 'data');
    for (const f of readdirSync(data).filter((n) => n.endsWith('.log'))) rmSync(path.join(data, f));

    const args = [hccBin, 'control-center', '--data-dir', data, '--port', '0', '--kubeconfig', cc.kubeconfig, '--scheduler-kubeconfig', cc.schedulerKubeconfig];
    const refused = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30_000 });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`hcc: ${data}: the database is at revision 0 but revision ${handedOut} was committed before: the writes in between are lost`);
    expect(refused.stderr).toContain('start with --accept-storage-loss to serve what is left');
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    const accepted = await startControlCenterProcess({ dir: cc.dir, extraArgs: ['--accept-storage-loss'] });
    procs.push(accepted);
    const created = await kubectl('1.35', accepted.kubeconfig, ['create', 'configmap', 'after', '-n', 'default', '--from-literal=v=1', '-o', 'jsonpath={.metadata.resourceVersion}']);
    expect(created.code, created.stderr).toBe(0);
    expect(Number(created.stdout)).toBeGreaterThan(handedOut);
  });
});
