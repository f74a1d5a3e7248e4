/**
 * Downsync: makes the management cluster hold exactly what is placed on it. One key is
 * `<Kind>/<namespace>/<name>` for a HostedCluster, NodePool, Secret or ConfigMap. Read the steps
 * in order; each decides one thing and may stop the pass.
 */
import { Skipped, type ReconcileResult } from '@hcc/client';
import { deleteDownstream } from './downsync-reconcile-delete.js';
import { ensureSyncerFinalizer } from './downsync-reconcile-finalizer.js';
import { applyDownstream } from './downsync-reconcile-apply.js';
import type { DownsyncDeps, Step, SyncKind } from './types.js';

/** The ordered steps of one pass. */
export const downsyncSteps = (deps: DownsyncDeps): Step[] => [
  deleteDownstream(deps), // upstream gone or terminating: remove the copy, then our finalizer
  ensureSyncerFinalizer(deps), // adds the upstream finalizer and goes on with the object the write returned
  applyDownstream(deps), // create or update the copy
];

/** Splits a downsync key `<Kind>/<ns>/<name>`. */
export function parseSyncKey(key: string): { kind: SyncKind; namespace: string; name: string; objKey: string } {
  const [kind, namespace, name] = key.split('/') as [SyncKind, string, string];
  return { kind, namespace, name, objKey: `${namespace}/${name}` };
}

/**
 * Reconciles one key, starting from the freshest objects known (the informers', or what the
 * syncer's own last write of either side returned while the informer still shows an older one).
 * @returns undefined when done, {@link Skipped} when a step found nothing to write, or a requeue
 */
export async function reconcileDownsync(deps: DownsyncDeps, steps: Step[], key: string): Promise<ReconcileResult | typeof Skipped> {
  const { kind, namespace, name, objKey } = parseSyncKey(key);
  const req = {
    kind,
    key,
    namespace,
    name,
    upstream: deps.ownWrites.freshest(key, deps.getUpstream(kind, objKey)),
    downstream: deps.downWrites.freshest(key, deps.getDownstream(kind, objKey)),
  };
  for (const step of steps) {
    const r = await step.run(req);
    if (r === 'continue') continue;
    if (r === 'stop') return;
    if (r === 'skip') return Skipped;
    return r;
  }
}
