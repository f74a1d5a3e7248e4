import { describe, expect, it } from 'vitest';
import { ApiError, type RestClient } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import { sideWriter } from './side-writer.js';

const status = (code: number, reason: string) => new ApiError(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: `${reason.toLowerCase()} ex` });

/** A RestClient whose calls are recorded and whose every call fails with `err` when set. */
function fakeClient(err?: ApiError) {
  const calls: unknown[][] = [];
  const answer = async (...args: unknown[]) => {
    calls.push(args);
    if (err) throw err;
    return args.at(-1);
  };
  const c = { get: answer, create: answer, update: answer, patch: answer, delete: answer } as unknown as RestClient;
  return { c, calls };
}

describe('sideWriter', () => {
  it('takes a 404 on delete as deleted and on get as absent', async () => {
    const { c } = fakeClient(status(404, 'NotFound'));
    const w = sideWriter(c);
    await expect(w.delete('HostedCluster', 'clusters', 'ex')).resolves.toBeUndefined();
    await expect(w.get('NodePool', 'clusters', 'ex')).resolves.toBeUndefined();
    // Writes that need the object still fail: the caller decides.
    await expect(w.patch('HostedCluster', 'clusters', 'ex', {})).rejects.toThrow('notfound ex');
  });

  it('throws every other error', async () => {
    const w = sideWriter(fakeClient(status(403, 'Forbidden')).c);
    await expect(w.delete('Secret', 'clusters', 'ps')).rejects.toThrow('forbidden ex');
    await expect(w.get('Secret', 'clusters', 'ps')).rejects.toThrow('forbidden ex');
    const obj = { metadata: { name: 'ps', namespace: 'clusters' } } as KubeObject;
    await expect(w.create('Secret', obj)).rejects.toThrow('forbidden ex');
  });

  it('writes with the kind and apiVersion of the synced kind', async () => {
    const { c, calls } = fakeClient();
    const w = sideWriter(c);
    await w.create('NodePool', { metadata: { name: 'np', namespace: 'clusters' } } as KubeObject);
    await w.update('ConfigMap', { apiVersion: 'wrong', kind: 'Wrong', metadata: { name: 'cm', namespace: 'clusters' } } as KubeObject);
    expect(calls[0]).toEqual([expect.objectContaining({ resource: 'nodepools' }), 'clusters', { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'np', namespace: 'clusters' } }, {}]);
    expect(calls[1]).toEqual([expect.objectContaining({ resource: 'configmaps' }), 'clusters', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'clusters' } }]);
  });

  it('asks for warnings about unknown fields only when the caller takes them', async () => {
    const { c, calls } = fakeClient();
    const w = sideWriter(c);
    const onWarning = () => {};
    await w.create('HostedCluster', { metadata: { name: 'ex', namespace: 'clusters' } } as KubeObject, onWarning);
    await w.patch('HostedCluster', 'clusters', 'ex', { spec: {} }, onWarning);
    await w.patch('HostedCluster', 'clusters', 'ex', { spec: {} });
    expect(calls[0]!.at(-1)).toEqual({ fieldValidation: 'Warn', onWarning });
    expect(calls[1]!.slice(4)).toEqual(['merge', { fieldValidation: 'Warn', onWarning }]);
    expect(calls[2]!.slice(4)).toEqual(['merge', {}]);
  });
});
