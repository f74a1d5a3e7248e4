import { describe, expect, it } from 'vitest';
import type { ManagementCluster } from '@hcc/crds';
import { stateDirNotes } from './up.js';

const mc = (name: string, spec: ManagementCluster['spec'] = {}): ManagementCluster => ({ metadata: { name }, spec });

describe('stateDirNotes: what a start on an existing state dir did not change', () => {
  it('nothing to say on a first start, or when the settings agree', () => {
    expect(stateDirNotes({ capacity: 5, capacityGiven: true }, ['mgmt-1'], [])).toEqual([]);
    expect(stateDirNotes({ capacity: 5, capacityGiven: true, platforms: 'AWS,None' }, ['mgmt-1'], [mc('mgmt-1', { capacity: 5, platforms: ['None', 'AWS'] })])).toEqual([]);
    // --capacity not given: the default is no request to change anything.
    expect(stateDirNotes({ capacity: 50, capacityGiven: false }, ['mgmt-1'], [mc('mgmt-1', { capacity: 5 })])).toEqual([]);
  });

  it('a --capacity or --platforms the existing clusters keep', () => {
    expect(stateDirNotes({ capacity: 7, capacityGiven: true, platforms: 'AWS' }, ['mgmt-1', 'mgmt-2'], [mc('mgmt-1', { capacity: 5 }), mc('mgmt-2', { capacity: 7, platforms: ['AWS'] })])).toEqual([
      `! --capacity 7 not applied: mgmt-1 keeps 5 (set when first created; change it with kubectl patch mc NAME --type=merge -p '{"spec":{"capacity":7}}')`,
      `! --platforms AWS not applied: mgmt-1 keeps all (set when first created; change it with kubectl patch mc NAME --type=merge -p '{"spec":{"platforms":["AWS"]}}')`,
    ]);
  });

  it('clusters an earlier start registered that this one does not run (not ones added by hand)', () => {
    const mcs = [mc('mgmt-1'), mc('mgmt-2'), mc('mgmt-3'), mc('mgmt-4', { mode: 'Push', kubeconfigSecretRef: { name: 'k' } }), mc('prod-eu')];
    expect(stateDirNotes({ capacity: 5, capacityGiven: false }, ['mgmt-1', 'mgmt-2'], mcs)).toEqual([
      '! mgmt-3, mgmt-4 registered earlier in this state dir but not started now (--management-clusters 2): they go Ready=False and keep what is placed there; to retire: kubectl delete mc mgmt-3 mgmt-4 --wait=false, then delete what they hold (README: Deleting, under Using the control center with kubectl)',
    ]);
  });

  it('a cluster this start does not run whose syncer heartbeated since it began (started by hand) stays Ready, and is told apart', () => {
    const start = Date.parse('2026-12-04T16:00:00Z');
    const beat = (name: string, secondsAfterStart: number): ManagementCluster => ({ ...mc(name), status: { lastHeartbeatTime: new Date(start + secondsAfterStart * 1000).toISOString(), leaseDurationSeconds: 4 } as ManagementCluster['status'] });
    // mgmt-3's last heartbeat came just before this start: its syncer was the one an earlier start ran, stopped since.
    expect(stateDirNotes({ capacity: 5, capacityGiven: false }, ['mgmt-1'], [mc('mgmt-1'), beat('mgmt-2', 2), beat('mgmt-3', -1)], start)).toEqual([
      '! mgmt-2 registered earlier in this state dir but not started now (--management-clusters 1): another syncer reports for it, so it stays Ready while that syncer runs',
      '! mgmt-3 registered earlier in this state dir but not started now (--management-clusters 1): it goes Ready=False and keeps what is placed there; to retire: kubectl delete mc mgmt-3 --wait=false, then delete what it holds (README: Deleting, under Using the control center with kubectl)',
    ]);
  });
});
