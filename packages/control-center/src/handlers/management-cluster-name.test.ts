/**
 * ManagementCluster names are RFC 1123 labels (at most 63 characters): the name becomes the
 * placement label's value and part of the `state.controlcenter.hcc.dev/<name>` label key, so a
 * longer one could be registered but never bound to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { allCRDs } from '@hcc/crds';
import { startControlCenter, type RunningControlCenter } from '../control-center.js';

const MCS = '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters';

describe('ManagementCluster names', () => {
  let cc: RunningControlCenter;
  let dir: string;
  const create = async (name: string) => {
    const res = await fetch(cc.url + MCS, {
      method: 'POST',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name }, spec: { capacity: 3 } }),
    });
    return { code: res.status, body: (await res.json()) as { reason?: string; message?: string; details?: { causes?: { field?: string }[] } } };
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hcc-mcname-'));
    cc = await startControlCenter({ dataDir: dir, tls: false, crds: allCRDs, logger: pino({ enabled: false }) });
  });
  afterAll(async () => {
    await cc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a 63-character DNS label', async () => {
    expect((await create('m'.repeat(63))).code).toBe(201);
  });

  it.each([
    { name: 'm'.repeat(64), msg: 'must be no more than 63 characters' },
    { name: 'eu.west-1', msg: 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters' },
    { name: 'Bad_Name', msg: 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters' },
  ])('refuses $name with 422 on metadata.name', async ({ name, msg }) => {
    const r = await create(name);
    expect(r.code).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.message).toContain(`ManagementCluster.controlcenter.hcc.dev "${name}" is invalid: metadata.name: Invalid value: "${name}": ${msg}`);
    expect(r.body.details!.causes![0]!.field).toBe('metadata.name');
  });
});
