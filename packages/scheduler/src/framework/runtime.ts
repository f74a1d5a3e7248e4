/**
 * Runs a profile over a snapshot: every filter on every cluster, then the scores of the feasible
 * ones, then selection (highest weighted score; ties by fewer placed HostedClusters, then at
 * random from an injected source). Only this file composes the "0/N management clusters are
 * available: ..." message, in kube-scheduler's style.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/framework/types.go (FitError)
 */
import type { HostedCluster } from '@hcc/crds';
import type { ClusterInfo, Profile, ScheduleResult } from './types.js';

/**
 * Composes the unschedulable message from per-cluster reasons.
 * @param total - clusters considered (a count)
 * @param reasons - reason → number of clusters it ruled out
 */
export function unschedulableMessage(total: number, reasons: Record<string, number>): string {
  if (total === 0) return '0/0 management clusters are available: no management clusters are registered.';
  const parts = Object.entries(reasons)
    .sort(([a, na], [b, nb]) => nb - na || a.localeCompare(b))
    .map(([r, n]) => `${n} ${r}`);
  return `0/${total} management clusters are available: ${parts.join(', ')}.`;
}

/**
 * Schedules one HostedCluster against a snapshot.
 * @param random - source of randomness in [0, 1) for the final tie-break
 */
export function runProfile(profile: Profile, hc: HostedCluster, clusters: ClusterInfo[], random: () => number): ScheduleResult {
  const feasible: ClusterInfo[] = [];
  const reasons: Record<string, number> = {};
  for (const c of clusters) {
    let ok = true;
    for (const f of profile.filters) {
      const st = f.filter(hc, c);
      if (st.code !== 'Success') {
        ok = false;
        // One reason per cluster: the first failing filter's, like kube-scheduler's default (no RunAllFilters).
        const r = st.reasons[0] ?? f.name;
        reasons[r] = (reasons[r] ?? 0) + 1;
        break;
      }
    }
    if (ok) feasible.push(c);
  }
  if (feasible.length === 0) return { feasible: false, message: unschedulableMessage(clusters.length, reasons), evaluated: clusters.length, reasons };
  const totals = new Map<string, number>(feasible.map((c) => [c.name, 0]));
  for (const { plugin, weight } of profile.scores) {
    const raw = feasible.map((c) => plugin.score(hc, c));
    let norm = raw;
    if (!plugin.normalized) {
      const max = Math.max(...raw);
      const min = Math.min(...raw, 0);
      norm = raw.map((v) => (max === min ? 100 : ((v - min) / (max - min)) * 100));
    }
    feasible.forEach((c, i) => totals.set(c.name, totals.get(c.name)! + norm[i]! * weight));
  }
  let best: ClusterInfo[] = [];
  let bestScore = -Infinity;
  for (const c of feasible) {
    const s = totals.get(c.name)!;
    if (s > bestScore + 1e-9) {
      best = [c];
      bestScore = s;
    } else if (Math.abs(s - bestScore) <= 1e-9) best.push(c);
  }
  if (best.length > 1) {
    const fewest = Math.min(...best.map((c) => c.placed));
    best = best.filter((c) => c.placed === fewest);
  }
  const chosen = best.length === 1 ? best[0]! : best[Math.floor(random() * best.length)]!;
  return { feasible: true, cluster: chosen.name, scores: Object.fromEntries(totals), evaluated: clusters.length };
}
