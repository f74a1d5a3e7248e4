/**
 * TaintToleration, a filter and a score like kube-scheduler's: a ManagementCluster's
 * `spec.taints` (`{key, value, effect: NoSchedule|PreferNoSchedule}`) repel HostedClusters that do
 * not tolerate them. The HostedCluster annotation `controlcenter.hcc.dev/tolerations` holds a JSON
 * list of Kubernetes tolerations (`[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]`).
 * - filter: an untolerated NoSchedule taint rules the cluster out;
 * - score: each untolerated PreferNoSchedule taint lowers the score (fewer is better).
 * An annotation that is not a valid toleration list rules out every cluster (reason
 * `invalid tolerations annotation`), so the mistake shows instead of being silently ignored.
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/
 * @see https://github.com/kubernetes/kubernetes/tree/master/pkg/scheduler/framework/plugins/tainttoleration
 */
import type { HostedCluster, ManagementCluster } from '@hcc/crds';
import { defaultNormalizeScore } from '../../framework/runtime.js';
import { Status, type FilterPlugin, type ScorePlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files (filters and scores). */
export const Name = PluginNames.TaintToleration;
/** HostedCluster annotation holding a JSON list of tolerations. */
export { AnnotationTolerations } from '@hcc/crds';
import { AnnotationTolerations } from '@hcc/crds';
/** Reason when the annotation is not a valid toleration list. */
export const ErrReasonBadTolerations = 'invalid tolerations annotation';
/** Reason, e.g. `had untolerated taint {dedicated: gpu}` (kube-scheduler's wording). */
export const errReasonUntolerated = (t: Taint): string => `had untolerated taint {${t.key}: ${t.value ?? ''}}`;

/** A ManagementCluster taint. */
export type Taint = NonNullable<ManagementCluster['spec']['taints']>[number];

/** Tolerations and their parser live in @hcc/client: the control center checks the annotation at admission too. */
export { parseTolerations, type Toleration } from '@hcc/client';
import { parseTolerations, type Toleration } from '@hcc/client';

/** Whether one toleration tolerates one taint (corev1 Toleration.ToleratesTaint). */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}

const memo = new Map<string, Toleration[] | Error>();
/** The HostedCluster's tolerations (memoised by annotation text; [] without the annotation). */
export function tolerationsOf(hc: HostedCluster): Toleration[] | Error {
  const s = hc.metadata.annotations?.[AnnotationTolerations];
  if (!s || !s.trim()) return [];
  let v = memo.get(s);
  if (!v) {
    v = parseTolerations(s);
    if (memo.size > 1000) memo.clear();
    memo.set(s, v);
  }
  return v;
}

const untolerated = (taints: readonly Taint[], tolerations: readonly Toleration[], effect: Taint['effect']): Taint[] =>
  taints.filter((taint) => taint.effect === effect && !tolerations.some((t) => toleratesTaint(t, taint)));

/** The TaintToleration plugin: filter (NoSchedule) and score (PreferNoSchedule). */
export const taintToleration = {
  name: Name,
  filter: (hc, cluster) => {
    const tolerations = tolerationsOf(hc);
    if (tolerations instanceof Error) return Status.unschedulable(ErrReasonBadTolerations);
    const [first] = untolerated(cluster.cluster.spec?.taints ?? [], tolerations, 'NoSchedule');
    return first ? Status.unschedulable(errReasonUntolerated(first)) : Status.success();
  },
  score: (hc, cluster) => {
    const tolerations = tolerationsOf(hc);
    return untolerated(cluster.cluster.spec?.taints ?? [], tolerations instanceof Error ? [] : tolerations, 'PreferNoSchedule').length;
  },
  normalizeScore: (scores) => defaultNormalizeScore(scores, true),
} satisfies FilterPlugin & ScorePlugin;
