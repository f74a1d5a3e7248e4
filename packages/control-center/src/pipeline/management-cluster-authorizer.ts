/**
 * The ManagementCluster authorizer: the syncer of management cluster X (user `hcc:syncer:X` in
 * `hcc:syncers`, pipeline/syncer-identity.ts) reads only the Secrets and ConfigMaps that belong to
 * X, after kube's Node authorizer, which lets a kubelet read only the Secrets and ConfigMaps of
 * the pods bound to it. A Secret or ConfigMap belongs to X when a HostedCluster or NodePool placed
 * on X references it, or the control center labelled it `state.controlcenter.hcc.dev/X: Sync`
 * (the scheduler's record of the same), and a Secret also when it is one HyperShift writes for a
 * HostedCluster placed on X (`<name>-admin-kubeconfig`, `<name>-kubeadmin-password`, which the
 * syncer copies up). So the syncer of X may
 * - get such a Secret or ConfigMap (told 404 when it is absent: a referenced one deleted, or a
 *   status Secret not copied up yet);
 * - list and watch Secrets and ConfigMaps only with a label selector requiring
 *   `state.controlcenter.hcc.dev/X=Sync` (the selector its informers use), as the Node authorizer
 *   checks a kubelet's `spec.nodeName` field selector (KEP-4601, authorize with selectors).
 * Anything else it reads or writes is up to the wrapped authorizer (RBAC), and its writes also
 * pass the ManagementClusterRestriction admission, whose refusals that the request alone decides
 * (`syncerRequestRefusal`: creating a HostedCluster, deleting a ManagementCluster, ...) are given
 * here already, so that `kubectl auth can-i` answers them as the write would. Every other user is only asked of the wrapped
 * authorizer.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/node/
 */
import {
  hostedClusterReferences,
  HostedClusterResource,
  LabelManagementCluster,
  LabelUpsyncedFrom,
  nodePoolReferences,
  NodePoolResource,
  stateLabelKey,
  StateSync,
  SyncerReadRefusalEnd,
  type HostedCluster,
  type NodePool,
} from '@hcc/crds';
import { parseSelector } from '@hcc/client';
import { allowAllRules, type Authorizer } from './authorize.js';
import type { RequestInfo } from './request-info.js';
import type { Store } from '../storage/store.js';
import { storageKey, storagePrefix } from '../registry/types.js';
import { isStatusSecretPlacedOn, placementOf } from './placement-lookup.js';
import { managementClusterOf, syncerOf } from './syncer-identity.js';
import { syncerRequestRefusal } from './admit/validating/management-cluster-restriction.js';

const restricted = new Set(['secrets', 'configmaps']);

/** Whether a label selector string requires `key=value` (`=`, `==` or `in` with that one value). */
function selectorRequires(selector: string, key: string, value: string): boolean {
  try {
    // Any requirement `key=value` (or `in (value)`) of the AND narrows the selection to what it may see.
    return parseSelector(selector).requirements.some((r) => r.key === key && (((r.operator === '=' || r.operator === '==') && r.values[0] === value) || (r.operator === 'in' && r.values.length === 1 && r.values[0] === value)));
  } catch {
    return false; // the list itself answers 400 for it, once authorized; here it selects nothing of X's
  }
}

/**
 * Why the syncer of `mc` may not make this read, or undefined when this authorizer has no
 * objection (the wrapped one still decides).
 * @param store - read for the labels of the object a `get` names
 */
export function syncerReadRefusal(mc: string, ri: RequestInfo, store: Store): string | undefined {
  if (!ri.isResourceRequest || ri.group !== '' || !restricted.has(ri.resource)) return undefined;
  const kinds = ri.resource === 'secrets' ? 'Secrets' : 'ConfigMaps';
  const state = stateLabelKey(mc);
  const who = syncerOf(mc);
  // Neither kind has a subresource; a request naming one is refused like any other, never let
  // through unchecked (a handler that took `NAME/status` for NAME would have served the object).
  if (ri.subresource) return `${who} may not use the ${JSON.stringify(ri.subresource)} subresource of ${kinds}`;
  if (ri.verb === 'list' || ri.verb === 'watch') {
    if (ri.labelSelector && selectorRequires(ri.labelSelector, state, StateSync)) return undefined;
    // Its own copies of status Secrets (it restores one deleted or edited in the control center).
    if (ri.resource === 'secrets' && ri.labelSelector && selectorRequires(ri.labelSelector, LabelUpsyncedFrom, mc)) return undefined;
    return `${who} may only list and watch ${kinds} with the label selector ${state}=${StateSync}${ri.resource === 'secrets' ? ` (or ${LabelUpsyncedFrom}=${mc}, its copies of status Secrets)` : ''}`;
  }
  // Writes are decided here too, before a patch is applied (a JSON patch's error would quote what
  // it copied) or an absent name answers 404: a Secret it may write is one of the status Secrets
  // of a HostedCluster placed on it (admission checks the rest); a create names nothing yet
  // (admission refuses a foreign name before the store answers 409); nothing else.
  if (ri.verb === 'deletecollection') return `${who} may not delete collections of ${kinds}`;
  if (ri.verb === 'create') return ri.resource === 'secrets' ? undefined : `${who} may not write ${kinds}`;
  if (ri.verb === 'update' || ri.verb === 'patch') {
    if (ri.resource === 'secrets' && isStatusSecretPlacedOn(store, mc, ri.namespace, ri.name, true)) return undefined;
    return `${who} may only write the admin-kubeconfig, custom-admin-kubeconfig and kubeadmin-password Secrets of HostedClusters placed on it`;
  }
  // A status Secret it copied up that the status no longer names (admission checks it is its copy).
  if (ri.verb === 'delete' && ri.resource === 'secrets' && ri.name && isStatusSecretPlacedOn(store, mc, ri.namespace, ri.name)) return undefined;
  if (ri.verb !== 'get') return `${who} may not ${ri.verb} ${kinds}`;
  const stored = ri.name ? store.get(storageKey({ group: '', resource: ri.resource, namespaced: true }, ri.namespace, ri.name)) : undefined;
  if (stored?.object.metadata.labels?.[state] === StateSync) return undefined;
  if (ri.resource === 'secrets' && isStatusSecretPlacedOn(store, mc, ri.namespace, ri.name)) return undefined;
  if (ri.name && referencedFrom(store, mc, ri.namespace, ri.resource === 'secrets' ? 'secrets' : 'configMaps', ri.name)) return undefined;
  return `${who} may only read ${kinds} ${SyncerReadRefusalEnd}`;
}

/**
 * Whether a HostedCluster or NodePool placed on `mc` in `namespace` references the Secret or
 * ConfigMap `name`, as the Node authorizer's graph answers for a pod bound to a node: whether it
 * exists, or carries the state label yet, does not matter (the syncer reads it live to learn that
 * it is gone, or lost its label).
 */
function referencedFrom(store: Store, mc: string, namespace: string, kind: 'secrets' | 'configMaps', name: string): boolean {
  for (const { object } of store.list(storagePrefix(HostedClusterResource, namespace)).items) {
    if (object.metadata.labels?.[LabelManagementCluster] === mc && hostedClusterReferences(object as HostedCluster)[kind].includes(name)) return true;
  }
  for (const { object } of store.list(storagePrefix(NodePoolResource, namespace)).items) {
    if (placementOf(store, 'nodepools', object) === mc && nodePoolReferences(object as NodePool)[kind].includes(name)) return true;
  }
  return false;
}

/**
 * Wraps `inner` (e.g. RBAC, or allow-all without a policy) with the syncer read restriction:
 * a syncer identity's request is allowed only when both allow it. `rules` (can-i --list) are
 * `inner`'s (everything, without them): a ResourceRule cannot say "placed on X", as a Node's
 * cannot, so for a syncer they are marked incomplete with an evaluationError saying what narrows
 * them, as kube's Node authorizer answers a node's rules review ("node authorizer does not support
 * user rule resolution"); `kubectl auth can-i VERB RESOURCE` asks about one request and is exact.
 * @param store - the control center's store, read synchronously for labels and placements
 * @see https://github.com/kubernetes/kubernetes/blob/master/plugin/pkg/auth/authorizer/node/node_authorizer.go (RulesFor)
 */
export function managementClusterAuthorizer(inner: Authorizer, store: Store): Authorizer {
  const out: Authorizer = (user, ri) => {
    const mc = managementClusterOf(user);
    if (mc !== undefined) {
      // As a kubelet, a syncer impersonates nobody, whatever the policy says.
      if (ri.verb === 'impersonate') return { allowed: false, reason: `${syncerOf(mc)} may not impersonate` };
      const why = syncerReadRefusal(mc, ri, store) ?? syncerRequestRefusal(mc, ri, store);
      if (why !== undefined) return { allowed: false, reason: why };
    }
    return inner(user, ri);
  };
  out.rules = (user, namespace) => {
    const rules = (inner.rules ?? allowAllRules)(user, namespace);
    const mc = managementClusterOf(user);
    if (mc === undefined) return rules;
    const why = `the ManagementCluster authorizer does not support rule resolution: ${syncerOf(mc)} may read only the Secrets and ConfigMaps of ${mc}, write only what is placed on ${mc}, and impersonate nobody`;
    return { ...rules, incomplete: true, evaluationError: rules.evaluationError ? `${rules.evaluationError}; ${why}` : why };
  };
  return out;
}
