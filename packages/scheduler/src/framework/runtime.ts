/**
 * Runs a profile over a snapshot: every filter on every cluster (in profile order, stopping at
 * the first that fails), then the scores of the feasible ones (preScore → score → normalizeScore,
 * times the weight), then selection: highest total; ties by fewer placed HostedClusters, then at
 * random from an injected source. Only this file composes the "0/N management clusters are
 * available: ..." message, in kube-scheduler's style.
 *
 * Guaranteed: the result depends only on the arguments (plugins are pure, randomness is injected),
 * so a seeded source gives the same decision for the same snapshot.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/framework/types.go (FitError)
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/schedule_one.go (selectHost)
 */
import type { HostedCluster } from '@hcc/crds';
import { MaxScore, type ClusterInfo, type Profile, type ScheduleResult } from './types.js';

/**
 * Composes the unschedulable message from per-cluster reasons, most frequent first (then
 * alphabetically), e.g. `0/4 management clusters are available: 2 no budget, 1 cordoned,
 * 1 platform KubeVirt not supported.`
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
 * Maps raw scores to [0, MaxScore] relative to the largest (kube-scheduler's
 * DefaultNormalizeScore): `score * MaxScore / max`, or `MaxScore - that` when `reverse` (lower raw
 * is better). Negative raw scores shift the range so the lowest maps to 0. All equal → all MaxScore.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/framework/plugins/helper/normalize_score.go
 */
export function defaultNormalizeScore(scores: readonly number[], reverse = false): number[] {
  if (scores.length === 0) return [];
  const max = Math.max(...scores);
  const min = Math.min(...scores, 0);
  const span = max - min;
  if (scores.every((v) => v === scores[0]) || !Number.isFinite(span)) return scores.map(() => MaxScore);
  return scores.map((v) => {
    const x = ((v - min) / span) * MaxScore;
    return reverse ? MaxScore - x : x;
  });
}

/** Clamps a plugin's normalized score to [0, MaxScore]; NaN becomes 0. */
const clamp = (v: number): number => (Number.isNaN(v) ? 0 : Math.min(MaxScore, Math.max(0, v)));

/**
 * Schedules one HostedCluster against a snapshot.
 * @param clusters - every ManagementCluster, as the cache saw them at the start of the cycle
 * @param random - source of randomness in [0, 1) for the final tie-break
 */
export function runProfile(profile: Profile, hc: HostedCluster, clusters: readonly ClusterInfo[], random: () => number): ScheduleResult {
  const feasible: ClusterInfo[] = [];
  const reasons: Record<string, number> = {};
  const rejectedBy: Record<string, number> = {};
  for (const c of clusters) {
    let ok = true;
    for (const f of profile.filters) {
      const st = f.filter(hc, c);
      if (st.code !== 'Success') {
        ok = false;
        // One reason per cluster: the first failing filter's, like kube-scheduler's default (no RunAllFilters).
        const r = st.reasons[0] ?? f.name;
        reasons[r] = (reasons[r] ?? 0) + 1;
        rejectedBy[f.name] = (rejectedBy[f.name] ?? 0) + 1;
        break;
      }
    }
    if (ok) feasible.push(c);
  }
  if (feasible.length === 0) {
    return { feasible: false, message: unschedulableMessage(clusters.length, reasons), evaluated: clusters.length, reasons, rejectedBy };
  }
  const totals = new Array<number>(feasible.length).fill(0);
  if (feasible.length > 1) {
    for (const { plugin, weight } of profile.scores) {
      const state = plugin.preScore?.(hc, feasible, clusters);
      const raw = feasible.map((c) => plugin.score(hc, c, state));
      const norm = plugin.normalizeScore ? plugin.normalizeScore(raw) : raw;
      for (let i = 0; i < feasible.length; i++) totals[i]! += clamp(norm[i] ?? 0) * weight;
    }
  }
  let best: number[] = [];
  let bestScore = -Infinity;
  for (let i = 0; i < feasible.length; i++) {
    const s = totals[i]!;
    if (s > bestScore + 1e-9) {
      best = [i];
      bestScore = s;
    } else if (Math.abs(s - bestScore) <= 1e-9) best.push(i);
  }
  if (best.length > 1) {
    const fewest = Math.min(...best.map((i) => feasible[i]!.placed));
    best = best.filter((i) => feasible[i]!.placed === fewest);
  }
  const chosen = best.length === 1 ? best[0]! : best[Math.min(best.length - 1, Math.floor(random() * best.length))]!;
  // The per-cluster totals are built only when read (tests, debugging): a map of every feasible
  // cluster per cycle cost as much as the filters and scores of 100 clusters together.
  let scores: Record<string, number> | undefined;
  return {
    feasible: true,
    cluster: feasible[chosen]!.name,
    get scores() {
      return (scores ??= Object.fromEntries(feasible.map((c, i) => [c.name, totals[i]!])));
    },
    evaluated: clusters.length,
  };
}
