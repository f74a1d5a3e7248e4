/**
 * Adopts spec fields the HyperShift operator fills in downstream when they are empty
 * (`clusterID`, `infraID`) back into the upstream object, so the control center shows them and
 * later syncs never wipe them. It runs in the upsync pass, after the status write, so the two
 * upstream writes a new copy causes (the operator fills these fields and its first status
 * together) come one after the other from one worker instead of racing for the same
 * resourceVersion. One merge patch of only those fields, without a resourceVersion: safe because
 * both are immutable once set (the HostedCluster CRD's `oldSelf == "" || self == oldSelf`
 * rules), so if someone set one meanwhile the control center answers 422 and their value stays.
 */
import { isInvalid } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import type { Logger } from 'pino';
import { operatorDefaultedSpecFields } from '../../transform.js';

/** The operator-generated fields the upstream object lacks, or undefined when none. */
export function fieldsToAdopt(up: KubeObject, down: KubeObject): Record<string, unknown> | undefined {
  const upSpec = (up.spec ?? {}) as Record<string, unknown>;
  const downSpec = (down.spec ?? {}) as Record<string, unknown>;
  const adopt: Record<string, unknown> = {};
  for (const f of operatorDefaultedSpecFields) if (!upSpec[f] && downSpec[f]) adopt[f] = downSpec[f];
  return Object.keys(adopt).length ? adopt : undefined;
}

/**
 * Patches the fields to adopt into the upstream HostedCluster.
 * @param patch - merge-patches the upstream main resource; returns the object written
 * @returns the object written, or undefined when there was nothing to adopt or the control
 *   center refused (422: set upstream meanwhile; logged)
 * @throws other API errors (the pass is retried)
 */
export async function adoptOperatorFields(up: KubeObject, down: KubeObject, patch: (p: unknown) => Promise<KubeObject>, log: Logger): Promise<KubeObject | undefined> {
  const adopt = fieldsToAdopt(up, down);
  if (!adopt) return undefined;
  try {
    return await patch({ spec: adopt });
  } catch (err) {
    if (!isInvalid(err)) throw err;
    log.info({ hostedCluster: `${up.metadata.namespace}/${up.metadata.name}`, fields: Object.keys(adopt), reason: (err as Error).message }, 'operator-generated fields not adopted: set upstream meanwhile');
    return undefined;
  }
}
