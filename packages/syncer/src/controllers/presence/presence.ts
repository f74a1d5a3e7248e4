/**
 * Presence: every syncer keeps a Lease in its management cluster, named for its ManagementCluster
 * and its control center's ID and renewed at every heartbeat, as a kubelet keeps its Node's Lease
 * in `kube-node-lease`. Another control center's syncer serving the cluster under the same name
 * reads them to learn whether that control center's syncer still runs: `--take-over-from` takes
 * over only from a control center whose syncer's Lease has expired (deleting the copies of a live
 * one would have the two delete each other's without end, each HostedCluster copy deleted tearing
 * a control plane down), and a syncer that starts says so when another control center's syncer
 * runs under its name.
 * @see https://kubernetes.io/docs/concepts/architecture/leases/
 */
import { formatMicroTime, isAlreadyExists, isConflict, isForbidden, isNotFound, type RestClient } from '@hcc/client';
import { AnnotationControlCenter, LabelSyncedBy, LeaseResource, NamespaceResource, type KubeObject } from '@hcc/crds';

/** Label on presence Leases (value `true`), beside `controlcenter.hcc.dev/synced-by: <ManagementCluster name>`. */
export const LabelPresence = 'controlcenter.hcc.dev/syncer-presence';

/**
 * How many Lease durations after its last renewal a presence Lease still counts as its syncer's
 * sign of life: two, so that clocks a little apart (the renewer's and the reader's) and one missed
 * renewal do not make a running syncer look stopped.
 */
export const PresenceGraceDurations = 2;

/** The name of the presence Lease of the syncer of ManagementCluster `cluster` for control center `controlCenter` (a DNS subdomain: both are DNS labels or uids). */
export const presenceLeaseName = (cluster: string, controlCenter: string): string => `hcc-syncer.${cluster}.${controlCenter}`.toLowerCase();

/** What a presence Lease says: whose, and until when its syncer counted as running. */
export interface Presence {
  /** The control center's ID. */
  controlCenter: string;
  /** `namespace/name` of the Lease. */
  lease: string;
  /** Its last renewal, as written (RFC 3339 MicroTime, on the writer's clock: for messages only). */
  renewTime: string;
  /** Its resourceVersion: a renewal (or any write) changes it. */
  resourceVersion: string;
  /**
   * How long it counts as live after this reader last saw it change, in ms
   * ({@link PresenceGraceDurations} Lease durations). Measured on the reader's clock, as client-go's
   * leader election does, so clocks apart between the writer and the reader do not matter.
   */
  graceMs: number;
}

/** Options of {@link renewPresence}. */
export interface RenewPresenceOptions {
  /** Namespace of the Lease (created when missing). */
  namespace: string;
  /** The ManagementCluster name. */
  cluster: string;
  /** This control center's ID. */
  controlCenter: string;
  /** This syncer process (holderIdentity). */
  holder: string;
  /** How long a renewal lasts, in seconds (the syncer's: 4 heartbeat intervals). */
  durationSeconds: number;
  /** Now, in ms since the epoch. */
  nowMs: number;
}

/** How many times {@link renewPresence} writes when another write of the same Lease came between its read and its write (409). */
const RenewAttempts = 3;

/**
 * Creates or renews this syncer's presence Lease (creating its namespace first when it is
 * missing). A write that loses to another write of the same Lease (409 Conflict or
 * AlreadyExists: two renewals overlapping, e.g. a slow heartbeat and the next one) reads the
 * Lease again and retries, up to {@link RenewAttempts} writes in all.
 * @throws the client's error (a 403 when the syncer may not write Leases there; the last 409
 * after the retries)
 */
export async function renewPresence(client: Pick<RestClient, 'get' | 'create' | 'update'>, o: RenewPresenceOptions): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await writePresence(client, o);
    } catch (err) {
      if (attempt >= RenewAttempts || !(isConflict(err) || isAlreadyExists(err))) throw err;
    }
  }
}

/**
 * Renews one syncer's presence Lease one renewal at a time: a renewal asked for while another is
 * in flight (heartbeats overlapping while the management cluster is slow, or was stopped and
 * resumes with several queued) shares that one's result instead of racing its read-and-update
 * into 409s (and a `PresenceFailed` Event for a Lease that was in fact renewed).
 */
export class PresenceRenewer {
  #inFlight: Promise<void> | undefined;

  constructor(private readonly client: Pick<RestClient, 'get' | 'create' | 'update'>) {}

  /**
   * {@link renewPresence}, or the renewal already in flight.
   * @throws as renewPresence (every caller sharing a renewal gets its error)
   */
  renew(o: RenewPresenceOptions): Promise<void> {
    return (this.#inFlight ??= renewPresence(this.client, o).finally(() => (this.#inFlight = undefined)));
  }
}

/** One read and write of {@link renewPresence}. */
async function writePresence(client: Pick<RestClient, 'get' | 'create' | 'update'>, o: RenewPresenceOptions): Promise<void> {
  const name = presenceLeaseName(o.cluster, o.controlCenter);
  const t = formatMicroTime(o.nowMs);
  let lease: KubeObject | undefined;
  try {
    lease = await client.get<KubeObject>(LeaseResource, o.namespace, name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const spec = { holderIdentity: o.holder, leaseDurationSeconds: Math.max(1, Math.ceil(o.durationSeconds)), renewTime: t };
  const labels = { [LabelSyncedBy]: o.cluster, [LabelPresence]: 'true' };
  const annotations = { [AnnotationControlCenter]: o.controlCenter };
  if (lease) {
    // Its label and ID are put back too: edited by hand, the Lease would no longer be found as this syncer's.
    const metadata = { ...lease.metadata, labels: { ...lease.metadata.labels, ...labels }, annotations: { ...lease.metadata.annotations, ...annotations } };
    await client.update(LeaseResource, o.namespace, { ...lease, metadata, spec: { ...(lease.spec as object), ...spec } });
    return;
  }
  const fresh: KubeObject = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: o.namespace, labels, annotations },
    spec: { ...spec, acquireTime: t },
  };
  try {
    await client.create(LeaseResource, o.namespace, fresh);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    // Its namespace is missing (a management cluster reached from outside: push mode, `hcc up`).
    await client.create(NamespaceResource, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace } }).catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
    await client.create(LeaseResource, o.namespace, fresh);
  }
}

/**
 * The presence Leases of every control center's syncer for ManagementCluster `cluster` in the
 * management cluster (in any namespace: each syncer keeps its own where it runs), by control
 * center ID (the most recently renewed one, when there are several).
 * @throws the client's error
 */
export async function presences(client: Pick<RestClient, 'list'>, cluster: string): Promise<Map<string, Presence>> {
  const list = await client.list<KubeObject>(LeaseResource, { labelSelector: `${LabelPresence}=true,${LabelSyncedBy}=${cluster}` });
  const out = new Map<string, Presence>();
  for (const l of list.items) {
    const controlCenter = l.metadata.annotations?.[AnnotationControlCenter];
    const spec = (l.spec ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
    if (!controlCenter || Number.isNaN(renewed)) continue;
    const graceMs = PresenceGraceDurations * (spec.leaseDurationSeconds ?? 0) * 1000;
    const seen = out.get(controlCenter);
    if (!seen || Date.parse(seen.renewTime) < renewed) out.set(controlCenter, { controlCenter, lease: `${l.metadata.namespace}/${l.metadata.name}`, renewTime: spec.renewTime!, resourceVersion: l.metadata.resourceVersion ?? '', graceMs });
  }
  return out;
}

/**
 * The Warning a failed presence Lease write gives (Event reason PresenceFailed): the RBAC advice
 * only for a 403 (the syncer may not write Leases in `namespace`), the error as it is otherwise
 * (the management cluster unreachable, a conflict left after the retries).
 */
export function presenceWriteProblem(namespace: string, err: unknown): string {
  const why = (err as Error).message;
  const effect = 'another control center\'s syncer taking over from this one cannot tell that it runs';
  if (isForbidden(err)) {
    return `this syncer's presence Lease in namespace ${namespace} of the management cluster cannot be written (give the syncer get, create and update on Leases there: the Role in deploy/syncer/rbac.yaml, or --presence-namespace): ${effect}: ${why}`;
  }
  return `this syncer's presence Lease in namespace ${namespace} of the management cluster could not be renewed this heartbeat (tried again at the next): ${effect} while this lasts: ${why}`;
}
