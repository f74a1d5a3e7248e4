/**
 * Adopts spec fields the HyperShift operator fills in downstream when they are empty
 * (`clusterID`, `infraID`) back into the upstream object, so the control center shows them and
 * later syncs never wipe them. One upstream write, guarded by resourceVersion.
 */
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
    await deps.upstream.patch(req.kind, req.namespace, req.name, { metadata: { resourceVersion: up.metadata.resourceVersion }, spec: adopt });
    return 'stop';
  },
});
