import { describe, expect, it } from 'vitest';
import type { ManagementCluster } from '@hcc/crds';
import { heartbeatStatus } from './heartbeat-status.js';

const now = new Date('2026-11-30T00:00:00Z');
const obs = { namespaces: 3, hostedClusters: 1, supportedVersions: ['4.17'] };

describe('heartbeatStatus', () => {
  it('announces the Lease duration next to the heartbeat time, so the scheduler judges the heartbeat by it', () => {
    const mc: ManagementCluster = { metadata: { name: 'slow' }, spec: { capacity: 5 } };
    expect(heartbeatStatus(mc, obs, now, '0.1.0', 240)).toMatchObject({
      lastHeartbeatTime: '2026-11-30T00:00:00Z',
      leaseDurationSeconds: 240,
      namespaces: 3,
      hostedClusters: 1,
      budget: 4,
      syncerVersion: '0.1.0',
      supportedVersions: ['4.17'],
      conditions: [expect.objectContaining({ type: 'Ready', status: 'True' })],
    });
  });

  it('replaces the duration an earlier syncer announced (a restart with another interval)', () => {
    const mc: ManagementCluster = { metadata: { name: 'm' }, spec: {}, status: { leaseDurationSeconds: 240, lastHeartbeatTime: '2026-11-29T00:00:00Z' } };
    expect(heartbeatStatus(mc, obs, now, '0.1.0', 40).leaseDurationSeconds).toBe(40);
  });

  it('removes status.platforms once the spec lists none (null in the merge patch it is written as)', () => {
    const mc: ManagementCluster = { metadata: { name: 'm' }, spec: {}, status: { platforms: ['None'], supportedVersions: ['4.16'] } };
    const st = heartbeatStatus(mc, { ...obs, supportedVersions: [] }, now, '0.1.0', 40);
    expect(st.platforms).toBeNull();
    expect(st.supportedVersions).toBeNull();
    expect(heartbeatStatus({ ...mc, spec: { platforms: ['AWS'] } }, obs, now, '0.1.0', 40).platforms).toEqual(['AWS']);
  });

  it('reports how many of the HostedClusters are its own copies', () => {
    const mc: ManagementCluster = { metadata: { name: 'm' }, spec: { capacity: 5 } };
    expect(heartbeatStatus(mc, { ...obs, hostedClusters: 4, syncedHostedClusters: 3 }, now, '0.1.0', 40)).toMatchObject({ hostedClusters: 4, syncedHostedClusters: 3, budget: 1 });
  });

  it('without a capacity, reports 1,000,000 less what it holds (free slots go down as it fills)', () => {
    const mc: ManagementCluster = { metadata: { name: 'open' }, spec: {} };
    expect(heartbeatStatus(mc, { ...obs, hostedClusters: 4 }, now, '0.1.0', 40).budget).toBe(999_996);
  });

  it('names the spec generation its budget was computed from (observedGeneration)', () => {
    const mc: ManagementCluster = { metadata: { name: 'm', generation: 3 }, spec: { capacity: 5 }, status: { observedGeneration: 2 } };
    expect(heartbeatStatus(mc, obs, now, '0.1.0', 40)).toMatchObject({ budget: 4, observedGeneration: 3 });
  });
});
