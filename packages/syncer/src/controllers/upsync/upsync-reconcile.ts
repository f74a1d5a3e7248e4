/**
 * Upsync: copies the status of each replicated HostedCluster and NodePool back to its upstream
 * object through the status subresource, and copies up the Secrets that status points users to
 * (`status.kubeconfig`, `status.kubeadminPassword`), so a user can reach the hosted cluster from
 * the control center. Keys are `<Kind>/<namespace>/<name>`.
 */
import { isDeepStrictEqual } from 'node:util';
import { AnnotationUpstreamUID, LabelSyncedBy, type KubeObject } from '@hcc/crds';
import type { ReconcileResult } from '@hcc/client';
import { upstreamStatus } from './upsync-status.js';
import { parseSyncKey } from '../downsync/downsync-reconcile.js';
import type { SyncKind } from '../downsync/types.js';

/** Label on Secrets copied up from a management cluster; value: the ManagementCluster name. */
export const LabelUpsyncedFrom = 'controlcenter.hcc.dev/upsynced-from';

export interface UpsyncDeps {
  cluster: string;
  getUpstream(kind: SyncKind, key: string): KubeObject | undefined;
  getDownstream(kind: SyncKind, key: string): KubeObject | undefined;
  /** PUT the status subresource upstream (resourceVersion-guarded). */
  updateUpstreamStatus(kind: SyncKind, obj: KubeObject): Promise<void>;
  /** Reads a Secret in the management cluster. */
  getDownstreamSecret(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Reads a Secret in the control center. */
  getUpstreamSecret(namespace: string, name: string): Promise<KubeObject | undefined>;
  createUpstreamSecret(obj: KubeObject): Promise<void>;
  updateUpstreamSecret(obj: KubeObject): Promise<void>;
}

/** Copies one status-referenced Secret up when missing or different. */
async function copySecretUp(deps: UpsyncDeps, namespace: string, name: string, owner: KubeObject): Promise<void> {
  const down = await deps.getDownstreamSecret(namespace, name);
  if (!down) return;
  const up = await deps.getUpstreamSecret(namespace, name);
  const want: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      labels: { [LabelUpsyncedFrom]: deps.cluster },
      ownerReferences: [{ apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata.name!, uid: owner.metadata.uid! }],
    },
    type: down.type,
    data: down.data,
  };
  if (!up) return deps.createUpstreamSecret(want);
  if (up.metadata.labels?.[LabelUpsyncedFrom] !== deps.cluster) return; // a user's own Secret: never overwrite it
  if (isDeepStrictEqual(up.data, want.data) && up.type === want.type) return;
  await deps.updateUpstreamSecret({ ...want, metadata: { ...want.metadata, resourceVersion: up.metadata.resourceVersion } });
}

/** Reconciles one key. */
export async function reconcileUpsync(deps: UpsyncDeps, key: string): Promise<ReconcileResult> {
  const { kind, namespace, objKey } = parseSyncKey(key);
  const up = deps.getUpstream(kind, objKey);
  const down = deps.getDownstream(kind, objKey);
  if (!up || !down) return;
  if (down.metadata.labels?.[LabelSyncedBy] !== deps.cluster || down.metadata.annotations?.[AnnotationUpstreamUID] !== up.metadata.uid) return;
  const status = upstreamStatus(down, up);
  if (kind === 'HostedCluster') {
    for (const ref of ['kubeconfig', 'kubeadminPassword']) {
      const name = (status[ref] as { name?: string } | undefined)?.name;
      if (name) await copySecretUp(deps, namespace, name, up);
    }
  }
  if (isDeepStrictEqual(up.status ?? {}, status)) return;
  await deps.updateUpstreamStatus(kind, { ...up, status });
}
