/**
 * Marks a ManagementCluster `Ready=False` (reason `HeartbeatExpired`) when its syncer has not
 * written a heartbeat for longer than the grace period, so it takes no new placements. What it
 * holds stays where it is. The syncer sets `Ready=True` again with its next heartbeat.
 */
import {
  ConditionReady,
  findCondition,
  ReasonHeartbeatExpired,
  setCondition,
  type Condition,
  type ManagementCluster,
} from '@hcc/crds';
import type { Lister, ReconcileResult } from '@hcc/client';

export interface ClusterHealthDeps {
  managementClusters: Lister<ManagementCluster>;
  now: () => Date;
  /** A heartbeat older than this is expired, in milliseconds. */
  heartbeatGraceMs: number;
  writeConditions(mc: ManagementCluster, conditions: Condition[]): Promise<void>;
}

/** Reconciles one ManagementCluster name. */
export async function reconcileClusterHealth(deps: ClusterHealthDeps, name: string): Promise<ReconcileResult> {
  const mc = deps.managementClusters.get(name);
  if (!mc) return;
  const ready = findCondition(mc.status?.conditions, ConditionReady);
  if (!ready || ready.status !== 'True') return;
  const hb = Date.parse(mc.status?.lastHeartbeatTime ?? '');
  const now = deps.now();
  const ageMs = Number.isFinite(hb) ? now.getTime() - hb : Infinity;
  if (ageMs <= deps.heartbeatGraceMs) return { requeueAfterMs: deps.heartbeatGraceMs - ageMs + 100 };
  const cond: Condition = {
    type: ConditionReady,
    status: 'False',
    reason: ReasonHeartbeatExpired,
    message: `No heartbeat from the syncer for more than ${Math.round(deps.heartbeatGraceMs / 1000)}s (last: ${mc.status?.lastHeartbeatTime ?? 'never'}); no new HostedClusters are placed here`,
  };
  await deps.writeConditions(mc, setCondition(mc.status?.conditions, cond, now));
}
