/**
 * Server-side apply of a built-in kind or a custom resource with a field the kind does not have:
 * the field is reported (fieldValidation) and dropped before ownership is computed, so it never
 * enters managedFields and never conflicts with another manager.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from '../control-center.js';
import { allCRDs } from '@hcc/crds';
import { startTestControlCenter } from '../testing/in-process.js';

const CM = '/api/v1/namespaces/default/configmaps/ssa1';

describe('server-side apply and unknown fields of built-in kinds', () => {
  let cc: RunningControlCenter;
  const apply = async (manager: string, body: unknown, extra = '') => {
    const res = await fetch(`${cc.url}${CM}?fieldManager=${manager}${extra}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/apply-patch+yaml' },
      body: JSON.stringify(body),
    });
    return { code: res.status, warning: res.headers.get('warning') ?? '', body: (await res.json()) as { message?: string; metadata?: { managedFields?: { manager: string; fieldsV1: Record<string, unknown> }[] } } };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('warns, drops the field, owns only what the object has; another manager applying it does not conflict', async () => {
    const first = await apply('me', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa1', q: 1 }, datas: { a: 'b' }, data: { x: 'y' } });
    expect(first.code).toBe(201);
    expect(first.warning).toContain('unknown field \\"datas\\"');
    expect(first.warning).toContain('unknown field \\"metadata.q\\"');
    expect(JSON.stringify(first.body.metadata?.managedFields)).not.toMatch(/f:datas|f:q/);
    expect(JSON.stringify(first.body.metadata?.managedFields)).toContain('f:x');
    const other = await apply('other', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa1' }, datas: { a: 'c' } });
    expect(other.code, other.body.message).toBe(200);
  });

  it('under Strict, refuses it', async () => {
    const r = await apply('me', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa1' }, datas: { a: 'b' } }, '&fieldValidation=Strict');
    expect(r.code).toBe(400);
    expect(r.body.message).toContain('strict decoding error: unknown field "datas"');
  });

  it('does the same for a custom resource: a HostedCluster field its schema lacks is reported and owned by nobody', async () => {
    const hc = (name: string) => ({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'HostedCluster',
      metadata: { name, namespace: 'clusters' },
      spec: {
        notAField: 'x',
        release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64' },
        pullSecret: { name: 'ps' },
        platform: { type: 'None' },
        etcd: { managementType: 'Managed', managed: { storage: { type: 'PersistentVolume' } } },
        networking: { networkType: 'OVNKubernetes' },
        services: ['APIServer', 'OAuthServer', 'Konnectivity', 'Ignition'].map((service) => ({ service, servicePublishingStrategy: { type: 'LoadBalancer' } })),
      },
    });
    const res = await fetch(`${cc.url}/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters/u1?fieldManager=me&fieldValidation=Warn`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/apply-patch+yaml' },
      body: JSON.stringify(hc('u1')),
    });
    const body = (await res.json()) as { message?: string; spec?: Record<string, unknown>; metadata?: { managedFields?: unknown[] } };
    expect(res.status, body.message).toBe(201);
    expect(res.headers.get('warning')).toContain('unknown field \\"spec.notAField\\"');
    expect(body.spec).not.toHaveProperty('notAField');
    expect(JSON.stringify(body.metadata?.managedFields)).not.toContain('notAField');
    expect(JSON.stringify(body.metadata?.managedFields)).toContain('f:release');
  });
});
