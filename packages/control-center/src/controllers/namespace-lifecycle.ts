/**
 * In-process controllers that finish deletions the API promises:
 * - Namespace: once `deletionTimestamp` is set (and {@link NamespaceDeletionGracePeriodMs} later, as kube's namespace controller), delete everything in it (objects with
 *   finalizers are marked and waited for), then drop the `kubernetes` finalizer and, when no other
 *   spec or metadata finalizer is left, the Namespace itself (the others' owners remove them,
 *   through `/finalize` for spec ones; the update that removes the last one deletes it).
 *   While content remains, the Namespace's status carries the namespace controller's conditions
 *   (`NamespaceDeletionDiscoveryFailure`, `NamespaceDeletionGroupVersionParsingFailure`,
 *   `NamespaceDeletionContentFailure`, `NamespaceContentRemaining`, `NamespaceFinalizersRemaining`)
 *   so `kubectl describe ns` says what it waits for.
 * - CustomResourceDefinition: delete every custom resource of it, then drop the
 *   `customresourcecleanup.apiextensions.k8s.io` finalizer; meanwhile its `Terminating` condition
 *   says so (`InstanceDeletionInProgress`, or `InstanceDeletionFailed`), as kube's CRD finalizer.
 * Level-triggered: each pass reads the store; a pass that cannot finish is retried.
 * @see https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/
 */
import type { Logger } from 'pino';
import { conditionUpToDate, setCondition, type Condition, type KubeObject } from '@hcc/crds';
import type { Store, StoreWatch } from '../storage/store.js';
import { SerialPasses } from './serial-passes.js';
import type { Registry } from '../registry/registry.js';
import { storagePrefix, systemContext } from '../registry/types.js';
import { namespaces, FinalizerKubernetes } from '../registry/builtin/namespaces.js';
import { customresourcedefinitions, FinalizerCRDCleanup, type CRDSpec } from '../registry/builtin/customresourcedefinitions.js';
import { deleteObject } from '../handlers/object-ops.js';
import * as apierrors from '../apierrors/status.js';

/** A Namespace status condition (core/v1 NamespaceCondition: a metav1.Condition without observedGeneration). */
type NamespaceCondition = Condition & { status: 'True' | 'False'; reason: string; message: string };

/**
 * The conditions kube-controller-manager's namespace controller writes on a Terminating
 * Namespace, from what is left in it: objects per resource and finalizers per name.
 * @param remaining - `resource.group` (`resource.` for the core group, as upstream's `%s.%s`) → objects left
 * @param finalizers - finalizer name → objects left that carry it
 * @param failure - why a delete of content failed this pass, if one did
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/namespace/deletion/namespaced_resources_deleter.go
 */
export function namespaceDeletionConditions(remaining: ReadonlyMap<string, number>, finalizers: ReadonlyMap<string, number>, failure?: string): NamespaceCondition[] {
  // Sorted as Go's sort.Strings sorts the formatted entries (by code unit).
  const list = (m: ReadonlyMap<string, number>, what: string) =>
    [...m.entries()]
      .map(([k, n]) => `${k} ${what.replace('%d', String(n))}`)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .join(', ');
  return [
    // One API server with every resource known: discovery and group-version parsing never fail here,
    // and upstream reports them as done in the same status.
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    failure
      ? { type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, 1 remaining: ${failure}` }
      : { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    remaining.size
      ? { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${list(remaining, 'has %d resource instances')}` }
      : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    finalizers.size
      ? { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${list(finalizers, 'in %d resource instances')}` }
      : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
  ];
}

/**
 * How long after it first sees a Namespace being deleted the controller starts deleting what is
 * in it, in milliseconds: kube-controller-manager's namespaceDeletionGracePeriod (5 s), which lets
 * every API server observe the deletion and refuse new objects there first. It also lets
 * `kubectl delete -f` of a file that lists its Namespace first delete the objects after it itself,
 * rather than find them gone (404).
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/namespace/namespace_controller.go
 */
export const NamespaceDeletionGracePeriodMs = 5_000;

/**
 * The Namespace and CustomResourceDefinition controllers above, over one store: {@link DeletionController.start}
 * watches both and runs a pass on each change and every `resyncMs`; {@link DeletionController.stop} ends the watches and
 * the timer. One pass at a time (a change meanwhile asks for one more); a Namespace or CRD whose deletion fails is logged
 * (warn) and tried again in the next pass, the others worked meanwhile.
 */
export class DeletionController {
  private watches: StoreWatch[] = [];
  private timer?: NodeJS.Timeout;
  private readonly passes = new SerialPasses(() => this.pass(), (err) => this.log.warn({ err, controller: 'deletion' }, 'pass failed; retrying'));
  /** When each Namespace being deleted (by uid) was first seen so, in ms since the epoch. */
  private readonly terminatingSince = new Map<string, number>();

  /**
   * @param resyncMs - how often a pass runs besides on changes, in milliseconds
   * @param namespaceGraceMs - see {@link NamespaceDeletionGracePeriodMs}
   */
  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly log: Logger,
    private readonly resyncMs = 1000,
    private readonly namespaceGraceMs = NamespaceDeletionGracePeriodMs,
  ) {}

  start(): void {
    const kick = () => this.kick();
    for (const info of [namespaces, customresourcedefinitions]) {
      this.watches.push(this.store.watch(storagePrefix(info), this.store.currentRevision(), kick));
    }
    // Contents of terminating namespaces change too; a periodic pass catches finalizers removed later.
    this.timer = setInterval(kick, this.resyncMs);
    this.kick();
  }

  stop(): void {
    this.passes.stop();
    for (const w of this.watches) w.stop();
    clearInterval(this.timer);
  }

  private kick(): void {
    this.passes.kick();
  }

  /**
   * One pass over every Namespace and CRD being deleted. One that fails is logged (warn) and left
   * for the next pass; the others are still worked, as upstream's controllers work each key on its
   * own (a Namespace whose contents cannot be deleted never holds up another's deletion).
   */
  private async pass(): Promise<void> {
    const now = Date.now();
    const seen = new Set<string>();
    const each = (controller: string, key: string, work: Promise<void>) =>
      work.catch((err: unknown) => this.log.warn({ err, controller, key }, 'deletion failed; retrying'));
    for (const { object } of this.store.list(storagePrefix(namespaces)).items) {
      if (!object.metadata.deletionTimestamp) continue;
      const uid = object.metadata.uid ?? object.metadata.name!;
      seen.add(uid);
      const since = this.terminatingSince.get(uid) ?? now;
      this.terminatingSince.set(uid, since);
      // Within the grace the periodic pass comes back to it.
      if (now - since >= this.namespaceGraceMs) await each('namespace', object.metadata.name!, this.finalizeNamespace(object));
    }
    for (const uid of this.terminatingSince.keys()) if (!seen.has(uid)) this.terminatingSince.delete(uid);
    for (const { object } of this.store.list(storagePrefix(customresourcedefinitions)).items) {
      if (object.metadata.deletionTimestamp) await each('crd-cleanup', object.metadata.name!, this.finalizeCRD(object));
    }
  }

  private async finalizeNamespace(ns: KubeObject): Promise<void> {
    const name = ns.metadata.name!;
    let remaining = 0;
    const byResource = new Map<string, number>();
    const byFinalizer = new Map<string, number>();
    let failure: string | undefined;
    for (const info of this.registry.all()) {
      if (!info.namespaced || info.version !== info.storageVersion) continue;
      const gr = info.group ? `${info.resource}.${info.group}` : info.resource;
      // Upstream's `%s.%s` of resource and group in the condition: `configmaps.` for the core group.
      const key = `${info.resource}.${info.group}`;
      for (const { object } of this.store.list(storagePrefix(info, name)).items) {
        remaining++;
        byResource.set(key, (byResource.get(key) ?? 0) + 1);
        for (const f of object.metadata.finalizers ?? []) byFinalizer.set(f, (byFinalizer.get(f) ?? 0) + 1);
        if (object.metadata.deletionTimestamp) continue;
        await deleteObject(this.store, info, name, object.metadata.name!, systemContext(), { dryRun: false }).catch((e) => {
          if (apierrors.isNotFound(e)) return;
          failure ??= `${gr} "${object.metadata.name}": ${(e as Error).message}`;
        });
      }
    }
    await this.writeConditions(`${storagePrefix(namespaces)}${name}`, namespaceDeletionConditions(byResource, byFinalizer, failure));
    if (failure) throw new Error(`namespace ${name}: ${failure}`);
    if (remaining > 0) return;
    let result: 'removed' | 'finalized' | undefined;
    await this.store.transact(`${storagePrefix(namespaces)}${name}`, (cur) => {
      result = undefined;
      if (!cur) return { op: 'none' };
      const had = namespaces.strategy.specFinalizers?.(cur) ?? [];
      const fins = had.filter((f) => f !== FinalizerKubernetes);
      if ((cur.metadata.finalizers?.length ?? 0) === 0 && fins.length === 0) {
        result = 'removed';
        return { op: 'delete' };
      }
      // Other finalizers are their owners' to remove (through /finalize): wait for them, writing nothing.
      if (fins.length === had.length) return { op: 'none' };
      result = 'finalized';
      const { finalizers: _had, ...spec } = (cur.spec ?? {}) as { finalizers?: string[] };
      return { op: 'put', object: { ...cur, spec: fins.length ? { ...spec, finalizers: fins } : spec } };
    });
    if (result === 'removed') this.log.info({ controller: 'namespace', key: name, result }, 'namespace emptied and removed');
    if (result === 'finalized') this.log.info({ controller: 'namespace', key: name, result, waitingFor: 'spec.finalizers' }, 'namespace emptied; waiting for its other finalizers');
  }

  /**
   * Writes the deletion conditions `want` of the object being deleted at storage key `key` (a
   * Namespace, a CustomResourceDefinition) when they changed (a transition keeps its time otherwise).
   */
  private async writeConditions(key: string, want: readonly Condition[]): Promise<void> {
    const now = new Date();
    await this.store.transact(key, (cur) => {
      if (!cur || !cur.metadata.deletionTimestamp) return { op: 'none' };
      const status = (cur.status ?? {}) as { conditions?: Condition[] };
      if (want.every((c) => conditionUpToDate(status.conditions, c))) return { op: 'none' };
      const conditions = want.reduce((list, c) => setCondition(list, c, now), status.conditions ?? []);
      return { op: 'put', object: { ...cur, status: { ...status, conditions } } };
    });
  }

  private async finalizeCRD(crd: KubeObject): Promise<void> {
    const spec = crd.spec as CRDSpec;
    const info = this.registry.all().find((r) => r.custom && r.group === spec.group && r.resource === spec.names.plural);
    let remaining = 0;
    let failure: string | undefined;
    if (info) {
      for (const { object } of this.store.list(storagePrefix(info)).items) {
        remaining++;
        if (object.metadata.deletionTimestamp) continue;
        await deleteObject(this.store, info, object.metadata.namespace ?? '', object.metadata.name!, systemContext(), { dryRun: false }).catch((e) => {
          if (!apierrors.isNotFound(e)) failure ??= (e as Error).message;
        });
      }
    }
    if (remaining > 0 || failure) {
      // What apiextensions-apiserver's CRD finalizer (crd_finalizer.go) reports while it works.
      await this.writeConditions(`${storagePrefix(customresourcedefinitions)}${crd.metadata.name}`, [
        failure
          ? { type: 'Terminating', status: 'True', reason: 'InstanceDeletionFailed', message: `could not issue all deletes: ${failure}` }
          : { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' },
      ]);
      if (failure) throw new Error(`CustomResourceDefinition ${crd.metadata.name}: ${failure}`);
      return;
    }
    await this.store.transact(`${storagePrefix(customresourcedefinitions)}${crd.metadata.name}`, (cur) => {
      if (!cur) return { op: 'none' };
      const fins = (cur.metadata.finalizers ?? []).filter((f) => f !== FinalizerCRDCleanup);
      if (fins.length === 0) return { op: 'delete' };
      return { op: 'put', object: { ...cur, metadata: { ...cur.metadata, finalizers: fins } } };
    });
    this.log.info({ controller: 'crd-cleanup', key: crd.metadata.name, result: 'finalized' }, 'custom resources removed');
  }
}
