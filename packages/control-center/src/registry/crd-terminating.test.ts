/**
 * A CRD being deleted keeps serving its objects (so their cleanup can run) but takes no creates:
 * 405 `create not allowed while custom resource definition is terminating`, as
 * apiextensions-apiserver answers; its `Terminating` condition says the deletion is in progress.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from '../control-center.js';
import { widgetCRD, WidgetsPath } from '../testing/fixtures.js';
import { startTestControlCenter } from '../testing/in-process.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = WidgetsPath;
const crd = widgetCRD();
const widget = (name: string, finalizers?: string[]) => ({ apiVersion: 'example.hcc.dev/v1', kind: 'Widget', metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: { size: 1 } });

describe('a terminating CRD', () => {
  let cc: RunningControlCenter;
  const call = async (method: string, url: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { code: res.status, body: (await res.json()) as { message?: string; reason?: string; metadata?: { deletionTimestamp?: string }; status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } } };
  };
  const until = async (fn: () => Promise<boolean>) => {
    for (let i = 0; i < 100; i++) {
      if (await fn()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('timed out');
  };

  beforeAll(async () => {
    cc = await startTestControlCenter();
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('refuses creates with 405 while its objects are cleaned up, and serves them until then', async () => {
    expect((await call('POST', CRDS, crd)).code).toBe(201);
    await until(async () => (await call('POST', WIDGETS, widget('held', ['example.com/hold']))).code === 201);
    expect((await call('DELETE', `${CRDS}/widgets.example.hcc.dev`)).code).toBe(200);
    await until(async () => !!(await call('GET', `${WIDGETS}/held`)).body.metadata?.deletionTimestamp);

    const create = await call('POST', WIDGETS, widget('late'));
    expect(create.code).toBe(405);
    expect(create.body.reason).toBe('MethodNotAllowed');
    expect(create.body.message).toBe('create not allowed while custom resource definition is terminating');
    expect((await call('GET', `${WIDGETS}/held`)).code).toBe(200);
    // Discovery lists no writes for it meanwhile, as apiextensions' discovery controller.
    const listed = (await call('GET', '/apis/example.hcc.dev/v1')).body.resources as unknown as { name: string; verbs: string[] }[];
    expect(listed.find((r) => r.name === 'widgets')?.verbs).toEqual(['delete', 'deletecollection', 'get', 'list', 'watch']);
    // Its Terminating condition says why it is still there, as kube's CRD finalizer writes it.
    const terminating = async () => (await call('GET', `${CRDS}/widgets.example.hcc.dev`)).body.status?.conditions?.find((c) => c.type === 'Terminating');
    await until(async () => (await terminating()) !== undefined);
    expect(await terminating()).toMatchObject({ status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });

    // Once the last object lets go, the CRD and its resource are gone.
    expect((await call('PATCH', `${WIDGETS}/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json')).code).toBe(200);
    await until(async () => (await call('GET', `${CRDS}/widgets.example.hcc.dev`)).code === 404);
    expect((await call('POST', WIDGETS, widget('after'))).code).toBe(404);
  });
});
