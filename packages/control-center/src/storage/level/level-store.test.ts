import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ClassicLevel } from 'classic-level';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeStore } from '../store-contract.js';
import { DamagedMarkerFile, droppedRecordLines, LevelStore, LossRevisionBump, RevisionWatermarkFile, StorageDamagedError } from './level-store.js';
import { RevisionCompactedError } from '../store.js';
import type { Store } from '../store.js';

describeStore('level', {
  async make(opts) {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-level-'));
    let current: Store = new LevelStore({ dir, historyCapacity: opts?.historyCapacity });
    await current.open();
    return {
      store: current,
      async reopen() {
        await current.close();
        current = new LevelStore({ dir });
        await current.open();
        return current;
      },
      async cleanup() {
        await current.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

describe('LevelStore after a failed batch', () => {
  it('rejects the batch, the answers waiting on it and every later write, reports unhealthy and calls onFailure once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-level-'));
    const failures: unknown[] = [];
    const store = new LevelStore({ dir, onFailure: (e) => failures.push(e) });
    await store.open();
    const cm = (v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { v } });
    await store.transact('/core/configmaps/ns/a', () => ({ op: 'put', object: cm('1') }));
    expect(await store.checkHealth()).toBe('');
    const rev = store.currentRevision();
    // The database goes away under the store: the next batch's write fails, as on a full disk.
    await (store as unknown as { db: ClassicLevel<string, string> }).db.close();
    const write = store.transact('/core/configmaps/ns/a', () => ({ op: 'put', object: cm('2') }));
    const noop = store.transact('/core/configmaps/ns/a', () => ({ op: 'none' }));
    await expect(write).rejects.toThrow();
    await expect(noop).rejects.toThrow();
    await expect(store.transact('/core/configmaps/ns/b', () => ({ op: 'put', object: cm('3') }))).rejects.toThrow();
    expect(failures).toHaveLength(1);
    expect(await store.checkHealth()).toMatch(/^writes are refused until a restart: /);
    expect(store.currentRevision()).toBe(rev);
    expect(store.get('/core/configmaps/ns/a')!.object.data).toEqual({ v: '1' });
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('LevelStore damage checks at open', () => {
  const cm = (name: string, v = 'x'.repeat(1000)) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { v } });
  async function filled(n: number): Promise<{ dir: string; revision: number }> {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-level-'));
    const store = new LevelStore({ dir });
    await store.open();
    for (let i = 0; i < n; i++) await store.transact(`/core/configmaps/ns/c${i}`, () => ({ op: 'put', object: cm(`c${i}`) }));
    const revision = store.currentRevision();
    await store.close();
    return { dir, revision };
  }
  const logsOf = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.log'));
  /** How many ConfigMaps a store opened on `dir` (then closed) holds. */
  const configMapsOnOpen = async (dir: string) => {
    const store = new LevelStore({ dir });
    await store.open();
    const n = store.count('/core/configmaps/');
    await store.close();
    return n;
  };

  it('refuses a database whose log had damaged records dropped, at this open and later ones, until the loss is accepted', async () => {
    const { dir } = await filled(300);
    const [log] = logsOf(dir);
    const bytes = readFileSync(path.join(dir, log!));
    bytes.write('garbage-garbage-garbage', Math.floor(bytes.length / 3));
    writeFileSync(path.join(dir, log!), bytes);
    const open = () => new LevelStore({ dir }).open();
    const first = open();
    await expect(first).rejects.toThrow(StorageDamagedError);
    await expect(first).rejects.toThrow(/LevelDB dropped damaged records when it opened the database \(.*dropping \d+ bytes; Corruption: checksum mismatch.*\)\. Objects written before may be missing\. Restore the data dir from a backup, or start with --accept-storage-loss/);
    // LevelDB deleted the damaged log: the marker says what the first open found.
    await expect(open()).rejects.toThrow(/an earlier start found damage \(.*dropping \d+ bytes; Corruption: checksum mismatch.*\)\. Objects written before may be missing\./);
    const accepted = new LevelStore({ dir, acceptLoss: true });
    await accepted.open();
    const left = accepted.count('/core/configmaps/');
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(300);
    await accepted.close();
    expect(existsSync(path.join(dir, DamagedMarkerFile))).toBe(false);
    const again = new LevelStore({ dir });
    await again.open();
    expect(again.count('/core/configmaps/')).toBe(left);
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a log whose records were overwritten with zeros (LevelDB skips them without reporting), at this open and later ones', async () => {
    const { dir } = await filled(300); // ~90 KB of log: several 32 KiB blocks
    const [log] = logsOf(dir);
    const file = path.join(dir, log!);
    const bytes = readFileSync(file);
    expect(bytes.length).toBeGreaterThan(2 * 32768);
    // Zeros from the second record of the first block to its end; the blocks after stay.
    const second = 7 + bytes.readUInt16LE(4);
    bytes.fill(0, second, 32768);
    writeFileSync(file, bytes);
    const open = () => new LevelStore({ dir }).open();
    await expect(open()).rejects.toThrow(`records in the database's logs were overwritten with zeros (${log}: zeroed record at byte ${second} before later records (LevelDB skips such records without reporting them))`);
    // Refused before LevelDB opened it: the log is as it was, and refused again.
    expect(readFileSync(file).equals(bytes)).toBe(true);
    await expect(open()).rejects.toThrow(`records in the database's logs were overwritten with zeros (${log}: zeroed record at byte ${second} `);
    const accepted = new LevelStore({ dir, acceptLoss: true });
    await accepted.open();
    expect(accepted.acceptedLoss?.problems.join()).toContain('zeroed record at byte');
    expect(accepted.count('/core/configmaps/')).toBeLessThan(300);
    await accepted.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a log ending in zeros (a preallocated or cut-short tail) and a block trailer of zeros as they are', async () => {
    const { dir } = await filled(300);
    const [log] = logsOf(dir);
    const file = path.join(dir, log!);
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.alloc(40_000)]));
    expect(await configMapsOnOpen(dir)).toBe(300);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a data dir that lost CURRENT before LevelDB starts an empty database over its files; restored, everything is there', async () => {
    const { dir } = await filled(50);
    // Once more, so the objects are in a table, not only the log.
    await configMapsOnOpen(dir);
    const manifest = readdirSync(dir).find((f) => f.startsWith('MANIFEST-'))!;
    const files = readdirSync(dir).sort();
    rmSync(path.join(dir, 'CURRENT'));
    await expect(new LevelStore({ dir }).open()).rejects.toThrow(
      `${dir}: LevelDB's CURRENT file is missing while its files are there (${manifest}, `,
    );
    await expect(new LevelStore({ dir }).open()).rejects.toThrow(`\`echo ${manifest} > ${path.join(dir, 'CURRENT')}\` restores it`);
    expect(readdirSync(dir).sort()).toEqual(files.filter((f) => f !== 'CURRENT'));
    writeFileSync(path.join(dir, 'CURRENT'), `${manifest}\n`);
    expect(await configMapsOnOpen(dir)).toBe(50);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an empty damage marker (its writer crashed) and names a marker or watermark it cannot read', async () => {
    const { dir } = await filled(3);
    writeFileSync(path.join(dir, DamagedMarkerFile), '');
    await expect(new LevelStore({ dir }).open()).rejects.toThrow('an earlier start found damage (its details were lost)');
    rmSync(path.join(dir, DamagedMarkerFile));
    mkdirSync(path.join(dir, DamagedMarkerFile));
    await expect(new LevelStore({ dir }).open()).rejects.toThrow(`${path.join(dir, DamagedMarkerFile)} cannot be read: EISDIR`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a database below the revision committed before (a deleted log); accepted, revisions go on after it', async () => {
    const { dir, revision } = await filled(20);
    expect(readFileSync(path.join(dir, RevisionWatermarkFile), 'utf8').trim()).toBe(String(revision));
    for (const f of logsOf(dir)) rmSync(path.join(dir, f));
    await expect(new LevelStore({ dir }).open()).rejects.toThrow(
      `the database is at revision 0 but revision ${revision} was committed before: the writes in between are lost (a truncated, damaged or deleted log)`,
    );
    const accepted = new LevelStore({ dir, acceptLoss: true });
    await accepted.open();
    // Past every revision that may have been handed out after the watermark was written, and every
    // older one compacted: a watch from a revision a client saw before gets 410 and lists again.
    const bumped = revision + LossRevisionBump;
    expect(accepted.currentRevision()).toBe(bumped);
    expect(() => accepted.watch('/core/configmaps/', revision, () => {})).toThrow(RevisionCompactedError);
    expect(() => accepted.watch('/core/configmaps/', revision + 5, () => {})).toThrow(RevisionCompactedError);
    const next = await accepted.transact('/core/configmaps/ns/after', () => ({ op: 'put', object: cm('after') }));
    expect(next!.modRevision).toBe(bumped + 1);
    await accepted.close();
    const again = new LevelStore({ dir });
    await again.open();
    expect(again.currentRevision()).toBe(bumped + 1);
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an empty, blank or non-decimal watermark (a file cut short), not only one missing', async () => {
    // A missing file is a new data dir; an existing one is written whole, so an empty one was damaged.
    for (const text of ['', '  \n', '0x10', '1e3', '-1']) {
      const { dir } = await filled(3);
      writeFileSync(path.join(dir, RevisionWatermarkFile), text);
      await expect(new LevelStore({ dir }).open()).rejects.toThrow(`holds no revision (${JSON.stringify(text.trim())})`);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unreadable watermark until the loss is accepted, which bumps past the database revision', async () => {
    const { dir, revision } = await filled(5);
    writeFileSync(path.join(dir, RevisionWatermarkFile), 'garbage');
    await expect(new LevelStore({ dir }).open()).rejects.toThrow(
      `${dir}: ${path.join(dir, RevisionWatermarkFile)} holds no revision ("garbage"): whether committed writes were lost cannot be told. Objects written before may be missing. Restore the data dir from a backup, or start with --accept-storage-loss`,
    );
    const accepted = new LevelStore({ dir, acceptLoss: true });
    await accepted.open();
    expect(accepted.currentRevision()).toBe(revision + LossRevisionBump);
    expect(accepted.count('/core/configmaps/')).toBe(5);
    await accepted.close();
    expect(readFileSync(path.join(dir, RevisionWatermarkFile), 'utf8').trim()).toBe(String(revision + LossRevisionBump));
    const again = new LevelStore({ dir });
    await again.open();
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the watermark up with commits while open, not only at close', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-level-'));
    const store = new LevelStore({ dir });
    await store.open();
    for (let i = 0; i < 5; i++) await store.transact(`/core/configmaps/ns/w${i}`, () => ({ op: 'put', object: cm(`w${i}`) }));
    const file = path.join(dir, RevisionWatermarkFile);
    const deadline = Date.now() + 10_000;
    while (!(existsSync(file) && readFileSync(file, 'utf8').trim() === String(store.currentRevision())) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(file, 'utf8').trim()).toBe(String(store.currentRevision()));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the dropped-record lines of LevelDB\'s info log, not a torn tail or routine lines', () => {
    const log = [
      '2026/12/02-05:46:47.338785 7fd0d0e166c0 Recovering log #3',
      '2026/12/02-05:46:47.339346 7fd0d0e166c0 (ignoring error) /d/000003.log: dropping 31355 bytes; Corruption: checksum mismatch',
      '2026/12/02-05:46:47.340600 7fd0d0e166c0 Level-0 table #5: started',
      '2026/12/02-05:46:47.342565 7fd0d0e166c0 Level-0 table #5: 18063 bytes OK',
    ].join('\n');
    expect(droppedRecordLines(log)).toEqual(['(ignoring error) /d/000003.log: dropping 31355 bytes; Corruption: checksum mismatch']);
    expect(droppedRecordLines('2026/12/02-05:46:47.338785 7fd0d0e166c0 Recovering log #3\n')).toEqual([]);
  });
});
