import { describe, expect, it } from 'vitest';
import { ApiError } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import { foreignControlPlaneNamespace } from './control-plane-namespace.js';

const hc = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'ex', namespace: 'clusters' } } as KubeObject;
const ns = (labels?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'clusters-ex', ...(labels ? { labels } : {}) } });
const refuse = (code: number, reason: string) => new ApiError(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: 'no' });

describe('foreignControlPlaneNamespace', () => {
  it.each([
    { name: 'none there', found: undefined, want: undefined },
    { name: "a control plane's (HyperShift's label)", found: ns({ 'hypershift.openshift.io/hosted-control-plane': 'true' }), want: undefined },
    {
      name: "someone else's",
      found: ns({ team: 'x' }),
      want: "its control-plane namespace clusters-ex exists here and is not a control plane's (no hypershift.openshift.io/hosted-control-plane label): HyperShift would take it over and delete it, with what lives in it, when the HostedCluster goes",
    },
  ])('$name', async ({ found, want }) => {
    const asked: string[] = [];
    expect(await foreignControlPlaneNamespace(async (n) => (asked.push(n), found), hc, () => {})).toBe(want);
    expect(asked).toEqual(['clusters-ex']);
  });

  it('cannot check under an identity that may not read namespaces: says so and lets the copy be made; other errors fail the pass', async () => {
    const told: unknown[] = [];
    expect(await foreignControlPlaneNamespace(async () => Promise.reject(refuse(403, 'Forbidden')), hc, (e) => told.push(e))).toBeUndefined();
    expect(told).toHaveLength(1);
    await expect(foreignControlPlaneNamespace(async () => Promise.reject(refuse(500, 'InternalError')), hc, () => {})).rejects.toThrow();
  });
});
