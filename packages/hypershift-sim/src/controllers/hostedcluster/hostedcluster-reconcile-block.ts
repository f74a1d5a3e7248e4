/**
 * Step: stop before building anything while the HostedCluster's input is invalid, as HyperShift's
 * "Block here if the cluster configuration does not pass validation" does. The status step already
 * said why in a condition; a fix (a spec change, or the pull secret appearing) triggers a new pass.
 */
import type { HostedCluster } from '@hcc/crds';
import { findCondition } from '../../conditions.js';
import { HostedClusterConditions } from '../../names.js';
import type { Step } from '../../step.js';

/** Conditions that block reconciliation while False (ReconciliationActive: paused by `spec.pausedUntil`). */
export const BlockingConditions: readonly string[] = [
  HostedClusterConditions.ValidConfiguration,
  HostedClusterConditions.SupportedHostedCluster,
  HostedClusterConditions.ValidReleaseImage,
  HostedClusterConditions.ReconciliationActive,
];

/** The step above: `'stop'` while any of {@link BlockingConditions} is False in `status.conditions`, else `'continue'`. */
export function blockOnInvalidSpec(): Step<HostedCluster> {
  return {
    name: 'blockOnInvalidSpec',
    async run(hc) {
      const conditions = hc.status?.conditions;
      return BlockingConditions.some((t) => findCondition(conditions, t)?.status === 'False') ? 'stop' : 'continue';
    },
  };
}
