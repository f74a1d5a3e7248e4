import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { leases } from './leases.js';

const lease = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'ns' }, spec }) as KubeObject;

describe('Lease validation, as upstream ValidateLeaseSpec on create and update', () => {
  it.each([
    { name: 'a held Lease', spec: { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 }, want: [] },
    { name: 'nothing set', spec: {}, want: [] },
    { name: 'a duration of 0', spec: { leaseDurationSeconds: 0 }, want: [['spec.leaseDurationSeconds', 0, 'must be greater than 0']] },
    { name: 'negative transitions', spec: { leaseTransitions: -3 }, want: [['spec.leaseTransitions', -3, 'must be greater than or equal to 0']] },
    {
      name: 'both',
      spec: { leaseDurationSeconds: -1, leaseTransitions: -1 },
      want: [
        ['spec.leaseDurationSeconds', -1, 'must be greater than 0'],
        ['spec.leaseTransitions', -1, 'must be greater than or equal to 0'],
      ],
    },
  ])('$name', ({ spec, want }) => {
    const shape = (errs: { field: string; badValue?: unknown; detail?: string }[]) => errs.map((e) => [e.field, e.badValue, e.detail]);
    expect(shape(leases.strategy.validate(lease(spec), undefined as never))).toEqual(want);
    expect(shape(leases.strategy.validateUpdate(lease(spec), lease({ holderIdentity: 'a', leaseDurationSeconds: 15 })))).toEqual(want);
  });
});
