/**
 * The binding subresource of HostedClusters (`POST .../hostedclusters/{name}/binding`), after
 * Kubernetes' `pods/binding`: one write that places a HostedCluster on a ManagementCluster — the
 * placement label and the `Scheduled=True` condition together (dropping the scheduler's
 * `Available=False` `Unschedulable` mark, if any) — guarded by the resourceVersion
 * the scheduler decided on. Placement admission still applies (only the scheduler's identity may
 * bind, once, to an existing cluster).
 * Body: `{"apiVersion":"controlcenter.hcc.dev/v1alpha1","kind":"Binding","metadata":{"name":..,"resourceVersion":..},"target":{"name":"mgmt-1"}}`.
 * Answer: `201` with a `Status` of `Success`, as kube-apiserver's BindingREST answers (not the
 * HostedCluster: whoever binds sees the result on its watch).
 * @see https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/binding-v1/
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/pod/storage/storage.go (BindingREST.Create)
 */
import {
  ControlCenterAPIVersion,
  ControlCenterGroup,
  ControlCenterVersion,
  HyperShiftGroup,
  LabelManagementCluster,
  scheduledCondition,
  setCondition,
  withoutNotPlaced,
  type Condition,
  type KubeObject,
} from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import * as field from '../apierrors/field.js';
import { decodeObjectBody } from '../pipeline/decode.js';
import { decodeError } from '../registry/builtin/decode.js';
import { objectMetaSchema } from '../openapi/builtin-schemas.js';
import { updateObject } from './object-ops.js';
import { validateValue, type JSONSchemaProps } from '../registry/schema/index.js';
import type { RequestScope } from './scope.js';
import { isDryRun, type WriteResult } from './write.js';

/** Whether a resource has the binding subresource. */
export const hasBinding = (group: string, resource: string): boolean => group === HyperShiftGroup && resource === 'hostedclusters';

/** The schema of `status.conditions` in a CRD version's schema, if it has one. */
function conditionsSchemaOf(schema: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  return schema?.properties?.status?.properties?.conditions;
}

/** POST a Binding. @throws StatusError 400 (malformed, other namespace), 404, 409 (stale resourceVersion, being deleted, already placed), 422 (admission, status.conditions would break its schema) */
export async function handleBinding(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  const b = decodeObjectBody(contentType, body) as { kind?: string; apiVersion?: string; metadata?: { name?: string; resourceVersion?: string }; target?: { name?: unknown } };
  if (b?.kind !== 'Binding' || (b.apiVersion && b.apiVersion !== ControlCenterAPIVersion)) {
    throw apierrors.badRequest(`the body must be a Binding (apiVersion ${ControlCenterAPIVersion})`);
  }
  // The Binding's ObjectMeta as Go decodes it (a resourceVersion that is not a string is a 400):
  // the HostedCluster built below from the stored one and this is not decoded again.
  const metaErr = decodeError(b.metadata, objectMetaSchema as JSONSchemaProps, 'Binding.metadata');
  if (metaErr) throw apierrors.cannotBeHandled('Binding', ControlCenterVersion, metaErr.message);
  const target = b.target?.name;
  if (typeof target !== 'string' || !target) {
    throw apierrors.invalid({ group: ControlCenterGroup, kind: 'Binding' }, scope.ri.name, [field.required('target.name')]);
  }
  if (b.metadata?.name && b.metadata.name !== scope.ri.name) throw apierrors.badRequest(`the name of the object (${b.metadata.name}) does not match the name on the URL (${scope.ri.name})`);
  const ns = (b.metadata as { namespace?: unknown } | undefined)?.namespace;
  if (ns && ns !== scope.ri.namespace) throw apierrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  const bindingResource = { group: scope.info.group, resource: `${scope.info.resource}/binding` };
  const conditionsSchema = conditionsSchemaOf(scope.info.schema as JSONSchemaProps | undefined);
  const now = scope.ctx.now;
  // The capacity guard's count of this bind, taken where the bind is decided (once) and given back
  // once the write settled: by then a committed bind is in the stored count.
  let reservation: { release: () => void } | undefined;
  try {
    await updateObject(
      scope.store,
      scope.info,
      scope.ri.namespace,
      scope.ri.name,
      (cur) => {
        if (!cur) throw apierrors.notFound({ group: scope.info.group, resource: scope.info.resource }, scope.ri.name);
        // As pods/binding (BindingREST.setPodNodeAndMetadata): 409 for an object being deleted or already placed.
        if (cur.metadata.deletionTimestamp) throw apierrors.conflict(bindingResource, scope.ri.name, `HostedCluster ${scope.ri.name} is being deleted, cannot be placed`);
        const placed = cur.metadata.labels?.[LabelManagementCluster];
        if (placed) throw apierrors.conflict(bindingResource, scope.ri.name, `HostedCluster ${scope.ri.name} is already placed on management cluster ${placed}`);
        // As the kubelet refuses a Pod its Node has no room for: never more HostedClusters on a
        // cluster than its capacity, whatever view the binder had (placement-capacity.ts). A 409,
        // so a scheduler retries from its cache, which then shows the cluster full.
        if (!reservation && scope.placements) {
          const r = scope.placements.reserve(target);
          if (!('release' in r)) throw apierrors.conflict(bindingResource, scope.ri.name, `management cluster ${target} holds ${r.held} HostedClusters, its capacity is ${r.capacity}: no room for ${scope.ri.namespace}/${scope.ri.name}`);
          reservation = r;
        }
        // updateObject hands fn a copy of the top level and metadata only: replace, never mutate, what is nested.
        const obj: KubeObject = cur;
        obj.metadata.resourceVersion = b.metadata?.resourceVersion || cur.metadata.resourceVersion;
        obj.metadata.labels = { ...obj.metadata.labels, [LabelManagementCluster]: target };
        const status = (obj.status ?? {}) as { conditions?: Condition[] };
        // Placed: the scheduler's Available=False Unschedulable mark no longer holds (the operator's Available follows).
        const conditions = withoutNotPlaced(setCondition(status.conditions, scheduledCondition(target), now));
        // The kind's validation is skipped; the one list the binding grows must still fit its schema (e.g. maxItems).
        if (conditionsSchema) {
          const errs = validateValue(conditions, conditionsSchema, 'status.conditions');
          if (errs.length) throw apierrors.invalid({ group: scope.info.group, kind: scope.info.kind }, scope.ri.name, errs);
        }
        obj.status = { ...status, conditions };
        return obj;
      },
      scope.ctx,
      { dryRun: isDryRun(query, 'CreateOptions'), subresource: 'binding' },
    );
  } finally {
    reservation?.release();
  }
  // Code 201 in the body too: the create handler fills in a Status's code (handlers/create.go).
  return { code: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}
