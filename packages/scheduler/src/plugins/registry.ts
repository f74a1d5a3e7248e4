/**
 * The default profile: which filters run (in order) and which scores, with weights.
 */
import type { Profile } from '../framework/types.js';
import { ready } from './ready/ready.js';
import { unschedulable } from './unschedulable/unschedulable.js';
import { budget } from './budget/budget.js';
import { platformSupported } from './platform-supported/platform-supported.js';
import { clusterSelector } from './cluster-selector/cluster-selector.js';
import { mostBudget } from './most-budget/most-budget.js';

/** Ready, Unschedulable, PlatformSupported, ClusterSelector, Budget; scored by MostBudget. */
export const defaultProfile = (): Profile => ({
  filters: [ready, unschedulable, platformSupported, clusterSelector, budget],
  scores: [{ plugin: mostBudget, weight: 1 }],
});
