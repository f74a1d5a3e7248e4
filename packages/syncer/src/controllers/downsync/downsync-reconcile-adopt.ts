/**
 * Adopts spec fields the HyperShift operator fills in downstream when they are empty
 * (`clusterID`, `infraID`) back into the upstream object, so the control center shows them and
 * later syncs never wipe them. One upstream merge patch of only those fields, without a
 * resourceVersion: the syncer's upsync writes status to the same object at the same moment (the
 * operator fills these fields and its first status together), and a resourceVersion guard lost
 * that race with a 409. It is safe unguarded because both fields are immutable once set (the
 * HostedCluster CRD's `oldSelf == "" || self == oldSelf` rules): if someone set one meanwhile,
 * the control center answers 422 and the next pass sees their value.
 */
import { isInvalid } from '@hcc/client';
import { LabelSyncedBy, AnnotationUpstreamUID } from '@hcc/crds';
import { operatorDefaultedSpecFields } from '../../transform.js';
import type { DownsyncDeps, Step } from './types.js';

export const adoptOperatorFields = (deps: DownsyncDeps): Step => ({
  name: 'adoptOperatorFields',
  async run(req) {
    if (req.kind !== 'HostedCluster') return 'continue';
    const up = req.upstream!;
    const down = req.downstream;
    if (!down || down.metadata.labels?.[LabelSyncedBy] !== deps.cluster) return 'continue';
    if (down.metadata.annotations?.[AnnotationUpstreamUID] !== up.metadata.uid) return 'continue';
    const upSpec = (up.spec ?? {}) as Record<string, unknown>;
    const downSpec = (down.spec ?? {}) as Record<string, unknown>;
    const adopt: Record<string, unknown> = {};
    for (const f of operatorDefaultedSpecFields) if (!upSpec[f] && downSpec[f]) adopt[f] = downSpec[f];
    if (Object.keys(adopt).length === 0) return 'continue';
    try {
      deps.ownWrites.record(req.key, up, await deps.upstream.patch(req.kind, req.namespace, req.name, { spec: adopt }));
    } catch (err) {
      if (!isInvalid(err)) throw err;
      deps.log.info({ key: req.key, fields: Object.keys(adopt), reason: (err as Error).message }, 'operator-generated fields not adopted: set upstream meanwhile');
      return 'continue';
    }
    return 'stop';
  },
});
