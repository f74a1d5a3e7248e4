/**
 * Validation workers answer exactly what the in-process check answers, for every HostedCluster and
 * NodePool of testdata/hypershift (valid ones and the negative CEL cases), under concurrency, and
 * keep answering when their worker dies. Uses the compiled worker script (`npm run build`, which
 * `npm test` runs first).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hyperShiftCRDs } from '@hcc/crds';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { checkCustomResource, checkPreparedCreate, prepareCustomResource, type JSONSchemaProps } from './index.js';
import { ValidationPool } from './validation-pool.js';

type Obj = Record<string, unknown>;

const testdata = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../testdata/hypershift');
const schemas: Record<string, JSONSchemaProps> = Object.fromEntries(
  hyperShiftCRDs.map((crd) => [crd.spec.names.kind, crd.spec.versions.find((v) => v.name === 'v1beta1')!.schema!.openAPIV3Schema as JSONSchemaProps]),
);

/** Every v1beta1 HostedCluster and NodePool of testdata/hypershift, prepared as a create prepares them. */
const objects: Obj[] = readdirSync(testdata)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => parseAllDocuments(readFileSync(join(testdata, f), 'utf8'), { uniqueKeys: false }).map((d) => d.toJS() as Obj | null))
  .filter((o): o is Obj => !!o && o.apiVersion === 'hypershift.openshift.io/v1beta1' && (o.kind === 'HostedCluster' || o.kind === 'NodePool'))
  .map((o) => {
    prepareCustomResource(o, schemas[o.kind as string]!, 'Ignore');
    return o;
  });

let pool: ValidationPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('ValidationPool', () => {
  it('has manifests with and without errors to compare', () => {
    const withErrors = objects.filter((o) => checkPreparedCreate(o, schemas[o.kind as string]!).errors.length > 0);
    expect(objects.length).toBeGreaterThan(10);
    expect(withErrors.length).toBeGreaterThanOrEqual(5);
    expect(withErrors.length).toBeLessThan(objects.length);
  });

  it('answers exactly what the in-process check answers, for many concurrent checks, without changing the objects', async () => {
    pool = new ValidationPool(2);
    expect(pool.size).toBe(2);
    const before = JSON.stringify(objects);
    const all = [...objects, ...objects, ...objects];
    const got = await Promise.all(all.map((o) => pool!.checkCreate(o, schemas[o.kind as string]!)));
    got.forEach((g, i) => {
      const o = all[i]!;
      expect(g, (o.metadata as { name: string }).name).toEqual(checkPreparedCreate(o, schemas[o.kind as string]!));
    });
    expect(JSON.stringify(objects)).toBe(before);
    // The workers answered (none died and left the work to the in-process fallback).
    expect(pool.size).toBe(2);
  });

  it('is what checkCustomResource gives on create: prepare, then the read-only check', () => {
    for (const o of objects) {
      const a = structuredClone(o);
      const full = checkCustomResource(a, schemas[o.kind as string]!, { fieldValidation: 'Warn' });
      expect({ errors: full.errors, warnings: full.warnings }).toEqual(checkPreparedCreate(o, schemas[o.kind as string]!));
      expect(a).toEqual(o);
    }
  });

  it('checks in-process when its worker dies, including the checks it held', async () => {
    pool = new ValidationPool(1);
    const schema = schemas.HostedCluster!;
    const hcs = objects.filter((o) => o.kind === 'HostedCluster');
    await pool.checkCreate(hcs[0]!, schema);
    expect(pool.size).toBe(1);
    const held = hcs.map((o) => pool!.checkCreate(o, schema));
    // Kill the worker while it holds checks (terminate is what an unexpected exit looks like to the pool).
    await (pool as unknown as { workers: { worker: { terminate(): Promise<number> } }[] }).workers[0]!.worker.terminate();
    const answers = await Promise.all(held);
    answers.forEach((a, i) => expect(a).toEqual(checkPreparedCreate(hcs[i]!, schema)));
    expect(pool.size).toBe(0);
    expect(await pool.checkCreate(hcs[1]!, schema)).toEqual(checkPreparedCreate(hcs[1]!, schema));
  });

  it('hands what the check itself throws to its caller, and keeps working', async () => {
    pool = new ValidationPool(1);
    const schema = schemas.HostedCluster!;
    // A getter that throws: the object cannot be handed to the worker, and the in-process check throws too.
    const bad = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'bad' } } as Obj;
    Object.defineProperty(bad, 'spec', { enumerable: true, get: () => { throw new Error('boom'); } });
    await expect(pool.checkCreate(bad, schema)).rejects.toThrow('boom');
    expect(pool.size).toBe(1);
    const hc = objects.find((o) => o.kind === 'HostedCluster')!;
    expect(await pool.checkCreate(hc, schema)).toEqual(checkPreparedCreate(hc, schema));
    // With no worker alive, a throwing check rejects as well (never an uncaught exception).
    await pool.close();
    await expect(pool.checkCreate(bad, schema)).rejects.toThrow('boom');
  });

  it('with no workers checks in-process', async () => {
    pool = new ValidationPool(0);
    expect(pool.size).toBe(0);
    const o = objects[0]!;
    expect(await pool.checkCreate(o, schemas[o.kind as string]!)).toEqual(checkPreparedCreate(o, schemas[o.kind as string]!));
  });
});
