/**
 * ManagementClusterRestriction admission: the syncer of management cluster X (user
 * `hcc:syncer:X` in `hcc:syncers`, see pipeline/syncer-identity.ts) may write only what belongs
 * to X, after kube's NodeRestriction admission plugin, which limits a kubelet to its own Node and
 * the pods bound to it. RBAC cannot say "placed on X"; this check can. The syncer of X may:
 * - create the ManagementCluster X only (not in Push mode, nor naming a kubeconfig Secret), then
 *   write its status (and a `spec.mode: Pull` it lacks; `status.clusterID` only while empty), never
 *   its other spec, labels or annotations, never delete one;
 * - write the status of, and delete, only HostedClusters and NodePools placed on X (the label
 *   `controlcenter.hcc.dev/management-cluster: X`; an unplaced NodePool counts as placed where its
 *   HostedCluster is), and of their spec and metadata change only its finalizer (and remove
 *   HyperShift's) and fill in an empty `clusterID`/`infraID`; never create one;
 * - create and update only the Secrets HyperShift writes for a HostedCluster placed on X
 *   (`<name>-admin-kubeconfig`, `<name>-kubeadmin-password`, `<name>-custom-admin-kubeconfig`), labelled
 *   `controlcenter.hcc.dev/upsynced-from: X`, never a Secret hcc did not copy up, never adding a
 *   state label of another cluster; delete only those labelled so (a status Secret the status no
 *   longer names);
 * - create and update only its Lease `hcc-system/X`;
 * - write Events (not delete them), as RBAC allows, and (with `--pull-crds`) update the HostedCluster and NodePool
 *   CustomResourceDefinitions, annotated `controlcenter.hcc.dev/pulled-from: X`, never another,
 *   and only while an admin sets `spec.pullCRDs` on ManagementCluster X (which it may not set);
 * - write nothing else. Reads are limited by the authorizer (pipeline/management-cluster-authorizer.ts).
 * Every refusal is 403 Forbidden naming the cluster, as NodeRestriction's.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#noderestriction
 */
import { isDeepStrictEqual } from 'node:util';
import {
  AnnotationPulledFrom,
  ControlCenterGroup,
  FinalizerHyperShift,
  FinalizerSyncer,
  HyperShiftGroup,
  LabelUpsyncedFrom,
  LeaseResource,
  ManagementClusterResource,
  OperatorGeneratedSpecFields,
  PulledCRDs,
  registeredBefore,
  reportsReady,
  stateLabelKey,
  SystemNamespace,
  type KubeObject,
  type ManagementCluster,
} from '@hcc/crds';
import { storageKey, storagePrefix } from '../../../registry/types.js';
import * as apierrors from '../../../apierrors/status.js';
import type { AdmissionAttributes, ValidatingAdmission } from '../admission.js';
import type { RequestInfo } from '../../request-info.js';
import type { Store } from '../../../storage/store.js';
import { managementClusterOf, syncerOf } from '../../syncer-identity.js';
import { isStatusSecretPlacedOn, placementOf } from '../../placement-lookup.js';

const statePrefix = stateLabelKey('');

const kindsOf: Record<string, string> = { hostedclusters: 'HostedClusters', nodepools: 'NodePools' };

/** The refusals both {@link syncerWriteRefusal} and {@link syncerRequestRefusal} give, worded once. */
const refusal = {
  deleteManagementClusters: (who: string) => `${who} may not delete ManagementClusters`,
  othersManagementCluster: (who: string) => `${who} may only register and update its own ManagementCluster`,
  create: (who: string, kinds: string) => `${who} may not create ${kinds}`,
  placedElsewhere: (who: string, kinds: string, where: string) =>
    `${who} may only change or delete ${kinds} placed on it (this one is ${where ? `placed on ${JSON.stringify(where)}` : 'not placed'})`,
  deleteEvents: (who: string) => `${who} may not delete Events`,
  onlyPulledCRDs: (who: string) => `${who} may only update the CustomResourceDefinitions ${PulledCRDs.join(' and ')}`,
};

/** Whether two objects have the same labels, annotations and owner references. */
function sameMetadata(a: KubeObject, b: KubeObject): boolean {
  const pick = (o: KubeObject) => [o.metadata.labels ?? {}, o.metadata.annotations ?? {}, o.metadata.ownerReferences ?? []];
  return isDeepStrictEqual(pick(a), pick(b));
}

/**
 * What a syncer may change in a HostedCluster or NodePool placed on its cluster, as NodeRestriction
 * leaves a kubelet only its pods' status: its finalizer (and HyperShift's, which no operator
 * removes upstream), the operator-generated `clusterID`/`infraID` while empty, and the status.
 * Anything else (a spec reference to another Secret, a label) would be the syncer choosing what it
 * is given.
 */
function specChangeRefusal(who: string, kinds: string, obj: KubeObject, old: KubeObject): string | undefined {
  const was = { ...(old.spec as Record<string, unknown> | undefined) };
  const now = { ...(obj.spec as Record<string, unknown> | undefined) };
  for (const f of kinds === 'HostedClusters' ? OperatorGeneratedSpecFields : []) {
    if (!was[f] && now[f] !== undefined) {
      delete now[f];
      delete was[f];
    }
  }
  if (!isDeepStrictEqual(was, now)) {
    // Only a HostedCluster has operator-generated fields (NodePools have neither).
    const fill = kinds === 'HostedClusters' ? ` (only fill in ${OperatorGeneratedSpecFields.join(' and ')})` : '';
    return `${who} may not change the spec of ${kinds}${fill}`;
  }
  if (!sameMetadata(old, obj)) return `${who} may not change the labels, annotations or owner references of ${kinds}`;
  const mine = new Set([FinalizerSyncer, FinalizerHyperShift]);
  const before = new Set(old.metadata.finalizers ?? []);
  const after = new Set(obj.metadata.finalizers ?? []);
  for (const f of after) if (!before.has(f) && f !== FinalizerSyncer) return `${who} may only add its own finalizer ${FinalizerSyncer}`;
  for (const f of before) if (!after.has(f) && !mine.has(f)) return `${who} may only remove the finalizers ${FinalizerSyncer} and ${FinalizerHyperShift}`;
  return undefined;
}

/**
 * Why the syncer of `mc` may not write this `status.clusterID` of its ManagementCluster, or
 * undefined when it may. The ID is filled in once: changed, this name could become the first
 * registered one of another cluster and stop placements there (DuplicateCluster); a cluster
 * rebuilt behind the name is the admin's to confirm, by clearing it (with the Lease). Nor may it
 * fill in an ID that a live (Ready) ManagementCluster registered after this one reports, which
 * would demote that one the same way; filled in for a name registered later, it only makes that
 * name the duplicate.
 * @param store - read for the other ManagementClusters
 */
function clusterIDRefusal(who: string, mc: string, obj: ManagementCluster, old: ManagementCluster, store: Store): string | undefined {
  const wasID = old.status?.clusterID;
  const newID = obj.status?.clusterID;
  if (typeof wasID === 'string' && wasID !== '') {
    if (newID === wasID) return undefined;
    return `${who} may not change status.clusterID once set (${wasID}); if the management cluster behind ${mc} really changed, an admin clears it: kubectl patch managementcluster ${mc} --subresource=status --type=merge -p '{"status":{"clusterID":null}}'`;
  }
  if (typeof newID !== 'string' || newID === '') return undefined;
  for (const { object } of store.list(storagePrefix(ManagementClusterResource)).items) {
    const other = object as ManagementCluster;
    if (other.metadata.name === mc || other.status?.clusterID !== newID || other.metadata.deletionTimestamp || !reportsReady(other) || !registeredBefore(obj, other)) continue;
    return `${who} may not report cluster ID ${newID}: ManagementCluster ${other.metadata.name ?? ''}, registered after ${mc}, reports it and takes placements (if both names really are one management cluster, remove one: delete what is placed on it while its syncer runs, stop that syncer, then kubectl delete managementcluster NAME)`;
  }
  return undefined;
}

/**
 * Why the syncer of `mc` may not make this write, or undefined when it may.
 * @returns a sentence for the 403's message (after `is forbidden: `)
 */
export function syncerWriteRefusal(mc: string, a: Pick<AdmissionAttributes, 'info' | 'operation' | 'obj' | 'old' | 'store'>): string | undefined {
  const { info, operation, obj, old, store } = a;
  const who = syncerOf(mc);
  if (info.group === ControlCenterGroup && info.resource === 'managementclusters') {
    if (operation === 'DELETE') return refusal.deleteManagementClusters(who);
    if (obj.metadata.name !== mc) return refusal.othersManagementCluster(who);
    // Registering sets what it likes but Push mode; afterwards its status, and a mode it lacks
    // (the heartbeat's one spec write, Pull). Capacity, platforms, taints, cordon and labels are
    // the admin's, as a kubelet may not change its Node's taints (NodeRestriction). Push mode and
    // its kubeconfigSecretRef are the admin's too: the push syncer reads that Secret with the
    // control center's rights, so a syncer naming one would read a Secret it may not.
    const spec = (o: KubeObject) => ({ ...(o.spec as Record<string, unknown> | undefined) });
    const now = spec(obj);
    const pushing = (s: Record<string, unknown>) => s.mode === 'Push' || s.kubeconfigSecretRef !== undefined;
    if (pushing(now) && (!old || !pushing(spec(old)))) {
      return `${who} registers its cluster in Pull mode: spec.mode Push and spec.kubeconfigSecretRef are the admin's (the push syncer reads that Secret with the control center's rights)`;
    }
    // Trusting a cluster's CRDs for the whole fleet is the admin's choice too.
    if (now.pullCRDs === true && !old) return `${who} may not set spec.pullCRDs: trusting its cluster's CRDs for the whole fleet is the admin's choice`;
    const idRefusal = old ? clusterIDRefusal(who, mc, obj as ManagementCluster, old as ManagementCluster, store) : undefined;
    if (idRefusal) return idRefusal;
    if (old) {
      const was = spec(old);
      if (was.mode === undefined && now.mode === 'Pull') delete now.mode;
      const finalizersChanged = !isDeepStrictEqual(old.metadata.finalizers ?? [], obj.metadata.finalizers ?? []);
      if (!isDeepStrictEqual(was, now) || !sameMetadata(old, obj) || finalizersChanged) return `${who} may only write the status of its ManagementCluster (and a spec.mode it lacks): spec, labels, annotations and finalizers are the admin's and the scheduler's`;
    }
    return undefined;
  }
  if (info.group === HyperShiftGroup && kindsOf[info.resource]) {
    const kinds = kindsOf[info.resource]!;
    if (operation === 'CREATE') return refusal.create(who, kinds);
    const where = placementOf(store, info.resource, old!);
    if (where !== mc) return refusal.placedElsewhere(who, kinds, where);
    if (operation === 'UPDATE') return specChangeRefusal(who, kinds, obj, old!);
    return undefined;
  }
  if (info.group === '' && info.resource === 'secrets') {
    if (operation === 'DELETE') {
      // A status Secret it copied up, once the status no longer names it (a kubeadmin password
      // dropped for an identity provider): only its own copy, of a HostedCluster placed on it.
      const target = old ?? obj;
      if (!isStatusSecretPlacedOn(store, mc, target.metadata.namespace ?? '', target.metadata.name ?? '')) return `${who} may not delete Secrets`;
      if (target.metadata.labels?.[LabelUpsyncedFrom] !== mc) return `${who} may only delete Secrets it copied up (labelled ${LabelUpsyncedFrom}=${mc})`;
      return undefined;
    }
    if (!isStatusSecretPlacedOn(store, mc, obj.metadata.namespace ?? '', obj.metadata.name ?? '', true)) {
      return `${who} may only write the admin-kubeconfig, custom-admin-kubeconfig and kubeadmin-password Secrets of HostedClusters placed on it`;
    }
    if (obj.metadata.labels?.[LabelUpsyncedFrom] !== mc) return `${who} may only write Secrets labelled ${LabelUpsyncedFrom}=${mc}`;
    if (old && old.metadata.labels?.[LabelUpsyncedFrom] === undefined) return `${who} may not overwrite a Secret hcc did not copy up`;
    const had = old?.metadata.labels ?? {};
    for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) {
      if (k.startsWith(statePrefix) && k !== stateLabelKey(mc) && had[k] !== v) return `${who} may not set the label ${k} of another management cluster`;
    }
    return undefined;
  }
  if (info.group === LeaseResource.group && info.resource === LeaseResource.resource) {
    if (obj.metadata.namespace !== SystemNamespace || obj.metadata.name !== mc) return `${who} may only write its own Lease ${SystemNamespace}/${mc}`;
    return undefined;
  }
  if ((info.group === '' || info.group === 'events.k8s.io') && info.resource === 'events') return operation === 'DELETE' ? refusal.deleteEvents(who) : undefined;
  if (info.group === 'apiextensions.k8s.io' && info.resource === 'customresourcedefinitions') {
    // `--pull-crds` updates the HostedCluster and NodePool CRDs, naming where it pulled them from.
    if (operation !== 'UPDATE' || !(PulledCRDs as readonly string[]).includes(obj.metadata.name ?? '')) return refusal.onlyPulledCRDs(who);
    if (obj.metadata.annotations?.[AnnotationPulledFrom] !== mc) return `${who} may only update a CustomResourceDefinition annotated ${AnnotationPulledFrom}=${mc}`;
    // Only a cluster whose CRDs the admin trusts for the whole fleet (they validate every HostedCluster).
    const own = store.get(storageKey(ManagementClusterResource, '', mc))?.object as ManagementCluster | undefined;
    if (own?.spec?.pullCRDs !== true) {
      return `${who} may update the CustomResourceDefinitions ${PulledCRDs.join(' and ')} only when an admin sets spec.pullCRDs on its ManagementCluster (kubectl patch managementcluster ${mc} --type=merge -p '{"spec":{"pullCRDs":true}}'), trusting its cluster's CRDs for the whole fleet`;
    }
    return undefined;
  }
  return `${who} may not write ${info.group ? `${info.resource}.${info.group}` : info.resource}`;
}

const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * The refusals of {@link syncerWriteRefusal} that the request alone decides (its verb, resource and
 * name, and for a HostedCluster or NodePool where the stored one is placed), for the authorizer to
 * give, so that `kubectl auth can-i` answers them as the write itself would: creating a
 * HostedCluster or NodePool, changing or deleting one placed elsewhere (its status too), deleting a
 * ManagementCluster or Events, writing another cluster's ManagementCluster (or its status), and
 * any CRD write but an update of the pulled ones. What needs the body is left to the admission.
 * @param ri - the request (a SelfSubjectAccessReview's resourceAttributes, or the request itself)
 * @returns the reason, or undefined when the request alone does not refuse it
 */
export function syncerRequestRefusal(mc: string, ri: RequestInfo, store: Store): string | undefined {
  if (!ri.isResourceRequest || !writeVerbs.has(ri.verb)) return undefined;
  // The main resource, or the status of a ManagementCluster, HostedCluster or NodePool (same rules).
  if (ri.subresource && !(ri.subresource === 'status' && (ri.resource === 'managementclusters' || kindsOf[ri.resource]))) return undefined;
  const who = syncerOf(mc);
  const deleting = ri.verb === 'delete' || ri.verb === 'deletecollection';
  if (ri.group === ControlCenterGroup && ri.resource === 'managementclusters') {
    if (deleting) return refusal.deleteManagementClusters(who);
    return ri.name && ri.name !== mc ? refusal.othersManagementCluster(who) : undefined;
  }
  const kinds = ri.group === HyperShiftGroup ? kindsOf[ri.resource] : undefined;
  if (kinds) {
    if (ri.verb === 'create') return refusal.create(who, kinds);
    const stored = ri.name ? store.get(storageKey({ group: ri.group, resource: ri.resource, namespaced: true }, ri.namespace, ri.name))?.object : undefined;
    const where = stored ? placementOf(store, ri.resource, stored) : mc;
    return where !== mc ? refusal.placedElsewhere(who, kinds, where) : undefined;
  }
  if ((ri.group === '' || ri.group === 'events.k8s.io') && ri.resource === 'events') return deleting ? refusal.deleteEvents(who) : undefined;
  if (ri.group === 'apiextensions.k8s.io' && ri.resource === 'customresourcedefinitions') {
    const pulled = (ri.verb === 'update' || ri.verb === 'patch') && (PulledCRDs as readonly string[]).includes(ri.name);
    return pulled ? undefined : refusal.onlyPulledCRDs(who);
  }
  return undefined;
}

/**
 * The plugin above: passes every user who is not a syncer; for a syncer's write it returns no field errors and throws
 * StatusError 403 Forbidden naming its cluster when the write is not one of those listed.
 */
export const managementClusterRestrictionAdmission: ValidatingAdmission = {
  name: 'ManagementClusterRestriction',
  validate(a) {
    const mc = managementClusterOf(a.user);
    if (mc === undefined) return [];
    const why = syncerWriteRefusal(mc, a);
    if (why !== undefined) throw apierrors.forbidden({ group: a.info.group, resource: a.info.resource }, a.obj.metadata.name ?? '', why);
    return [];
  },
};
