/**
 * Serving resources defined by CRDs: builds one ResourceInfo per served version of a CRD, with a
 * strategy that validates against the version's structural schema, prunes unknown fields,
 * applies defaults, keeps spec and status apart when the status subresource is enabled, and
 * renders `additionalPrinterColumns` in Tables.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/registry/customresource/strategy.go
 */
import { FinalizerHyperShift, FinalizerNodePools, HyperShiftGroup, LabelManagementCluster, NodePoolResource, SchedulersGroup, setOwn, type KubeObject } from '@hcc/crds';
import { age, ageColumn, baseStrategy, column, nameColumn, specPart, statusSubresource } from './generic-strategy.js';
import { storagePrefix, type ColumnDefinition, type ResourceInfo, type StrategyContext } from './types.js';
import type { Store } from '../storage/store.js';
import { servedNames, type CRDSpec, type CRDVersion } from './builtin/customresourcedefinitions.js';
import { compareVersions } from './registry.js';
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { checkCustomResource, prepareCustomResource, reportUnknownFields } from './schema/index.js';
import type { SchemaChecker } from './schema/validation-pool.js';
import type { JSONSchemaProps } from './schema/types.js';
import { compileJSONPath, printerColumnCell } from '../pipeline/jsonpath.js';
import type { FieldError } from '../apierrors/field.js';

/**
 * The warning a request to a deprecated CRD version gets when the CRD gives none, as
 * apiextensions-apiserver words it: `<group>/<version> <Kind> is deprecated`, and `; use
 * <group>/<v> <Kind>` naming the most preferred served, not deprecated version that is preferred
 * over it (Kubernetes' version priority), when there is one.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go (defaultDeprecationWarning)
 */
export function defaultDeprecationWarning(deprecated: string, spec: Pick<CRDSpec, 'group' | 'names' | 'versions'>): string {
  const msg = `${spec.group}/${deprecated} ${spec.names.kind} is deprecated`;
  const newer = spec.versions.filter((v) => v.served && !v.deprecated && compareVersions(v.name, deprecated) < 0).map((v) => v.name).sort(compareVersions);
  return newer.length ? `${msg}; use ${spec.group}/${newer[0]} ${spec.names.kind}` : msg;
}

/** Validates a custom resource against its schema, turning unknown fields into errors or warnings per fieldValidation. */
function checkAgainstSchema(obj: KubeObject, schema: JSONSchemaProps | undefined, kind: string, version: string, ctx: StrategyContext, old?: KubeObject): FieldError[] {
  if (!schema) return [];
  const { errors, unknownFields, warnings } = checkCustomResource(obj, schema, { fieldValidation: ctx.fieldValidation, ...(old ? { oldObj: old } : {}) });
  for (const w of warnings) ctx.warnings.push(w);
  reportUnknownFields(unknownFields, kind, version, ctx);
  return errors;
}

/**
 * {@link checkAgainstSchema} of a new object, with the read-only part (structural validation and
 * CEL rules) run by `checker` (validation workers) while this thread serves other requests.
 */
async function checkNewAgainstSchema(obj: KubeObject, schema: JSONSchemaProps | undefined, kind: string, version: string, ctx: StrategyContext, checker: SchemaChecker): Promise<FieldError[]> {
  if (!schema) return [];
  const { unknownFields, rejected } = prepareCustomResource(obj, schema, ctx.fieldValidation);
  if (!rejected) {
    const { errors, warnings } = await checker.checkCreate(obj, schema);
    for (const w of warnings) ctx.warnings.push(w);
    reportUnknownFields(unknownFields, kind, version, ctx);
    return errors;
  }
  reportUnknownFields(unknownFields, kind, version, ctx);
  return [];
}

/**
 * The placement label of a HostedCluster or NodePool (`controlcenter.hcc.dev/management-cluster`)
 * is the scheduler's, as a pod's `spec.nodeName` is, and stays whatever a write leaves out, the
 * way a main-resource update keeps the status: a PUT without it (`kubectl replace -f` of the
 * manifest a user applied, a GitOps tool's replace), a PATCH that drops the whole labels map
 * (`"labels": null`: client-side `kubectl apply` sends that when the labels a user applied before
 * are gone from the manifest), and a write that removes the key itself. The last (`kubectl label
 * ... key-`, a JSON patch `remove`, an apply of a manifest that carried the label before and no
 * longer does) answers with a warning that it was kept: refusing it would leave a manifest that
 * once carried the label (exported with `kubectl get -o yaml` and applied back) unable ever to
 * drop it, as the apply records it as the applier's. A change to another value is left for
 * placement admission to refuse (Forbidden: the placement is immutable).
 * @param replaced - true for a PUT, false for a PATCH or apply (as Strategy.prepareForUpdate in types.ts gets it)
 */
function keepPlacementLabel(obj: KubeObject, old: KubeObject, ctx: StrategyContext, replaced: boolean, kind: string): void {
  const placed = old.metadata.labels?.[LabelManagementCluster];
  if (placed === undefined) return;
  const labels = obj.metadata.labels as unknown;
  const wholeMapGone = labels === undefined || labels === null;
  if (!wholeMapGone && typeof labels === 'object' && Object.hasOwn(labels as object, LabelManagementCluster)) return;
  if (!labels || typeof labels !== 'object') obj.metadata.labels = {};
  setOwn(obj.metadata.labels!, LabelManagementCluster, placed);
  // A whole labels map gone is no removal of this label (a PUT or `"labels": null` of a manifest
  // that never named it), unless an apply that named it before no longer does.
  if (!replaced && (!wholeMapGone || appliedPlacementDropped(old, obj)) && ctx.userGroups && !ctx.userGroups.includes(SchedulersGroup)) {
    ctx.warnings.push(
      `metadata.labels[${LabelManagementCluster}]: kept as ${JSON.stringify(placed)}: the placement is the scheduler's and a placed ${kind === 'NodePool' ? 'NodePool stays with its HostedCluster' : 'HostedCluster never moves'}, so removing the label changes nothing`,
    );
  }
}

/**
 * Whether this write is an apply that named the placement label last time and no longer does: a
 * server-side applier whose Apply entry owned the label and now does not, or a client-side
 * `kubectl apply` whose last-applied annotation named it and now does not.
 */
function appliedPlacementDropped(old: KubeObject, obj: KubeObject): boolean {
  const leaf = `f:${LabelManagementCluster}`;
  type Entry = { manager?: string; operation?: string; subresource?: string; fieldsV1?: { 'f:metadata'?: { 'f:labels'?: Record<string, unknown> } } };
  const owns = (e: Entry) => !!e.fieldsV1?.['f:metadata']?.['f:labels'] && Object.hasOwn(e.fieldsV1['f:metadata']['f:labels'], leaf);
  const entries = (o: KubeObject): Entry[] => (Array.isArray(o.metadata.managedFields) ? (o.metadata.managedFields as Entry[]) : []);
  for (const e of entries(old)) {
    if (e.operation !== 'Apply' || !owns(e)) continue;
    const now = entries(obj).find((n) => n.operation === 'Apply' && n.manager === e.manager && (n.subresource ?? '') === (e.subresource ?? ''));
    if (now && !owns(now)) return true;
  }
  const appliedLabels = (o: KubeObject): Record<string, unknown> | undefined => {
    const text = o.metadata.annotations?.[LastAppliedAnnotation];
    if (typeof text !== 'string') return undefined;
    try {
      const labels = (JSON.parse(text) as { metadata?: { labels?: unknown } })?.metadata?.labels;
      return labels && typeof labels === 'object' ? (labels as Record<string, unknown>) : {};
    } catch {
      return undefined;
    }
  };
  const before = appliedLabels(old);
  const after = appliedLabels(obj);
  return !!before && Object.hasOwn(before, LabelManagementCluster) && !!after && !Object.hasOwn(after, LabelManagementCluster);
}

/**
 * A new HostedCluster or NodePool that arrives with the placement label from anyone but the
 * scheduler (a manifest exported with `kubectl get -o yaml`, a backup being restored, `kubectl
 * replace --force`) is created without it, with a warning, and scheduled again: the placement is
 * the scheduler's (placement admission), and refusing the create would lose the object that
 * `replace --force` has already deleted. The server's own writes (no user) keep it.
 */
function dropPlacementOnCreate(obj: KubeObject, ctx: StrategyContext, kind: string): void {
  const labels = obj.metadata.labels;
  if (!labels || !Object.hasOwn(labels, LabelManagementCluster) || !ctx.userGroups || ctx.userGroups.includes(SchedulersGroup)) return;
  const was = labels[LabelManagementCluster];
  delete labels[LabelManagementCluster];
  forgetAppliedPlacement(obj);
  ctx.warnings.push(
    `metadata.labels[${LabelManagementCluster}]: ${JSON.stringify(was)} ignored: only the scheduler places ${kind}s, so this one ${kind === 'NodePool' ? "follows its HostedCluster's placement" : 'is scheduled again'}; to choose management clusters, set the annotation controlcenter.hcc.dev/management-cluster-selector${kind === 'NodePool' ? ' on its HostedCluster' : ''}`,
  );
}

/** kubectl's client-side apply annotation (the manifest as last applied, JSON). */
const LastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Once a create has dropped the placement label, the record of what was applied must not name it
 * either: otherwise the applier "owns" a label the server threw away, and taking it out of the
 * manifest later makes `kubectl apply` remove it from the placed object (kept, with a warning:
 * keepPlacementLabel). Drops the label from the client-side apply annotation (when it is a JSON
 * object naming it) and from every managedFields entry (server-side apply), with the parents it
 * leaves empty. Anything it cannot read is left as it is.
 */
function forgetAppliedPlacement(obj: KubeObject): void {
  const annotations = obj.metadata.annotations;
  const text = annotations && Object.hasOwn(annotations, LastAppliedAnnotation) ? annotations[LastAppliedAnnotation] : undefined;
  if (typeof text === 'string') {
    try {
      const applied = JSON.parse(text) as { metadata?: { labels?: Record<string, unknown> } };
      const appliedLabels = applied?.metadata?.labels;
      if (appliedLabels && typeof appliedLabels === 'object' && Object.hasOwn(appliedLabels, LabelManagementCluster)) {
        delete appliedLabels[LabelManagementCluster];
        if (Object.keys(appliedLabels).length === 0) delete applied.metadata!.labels;
        annotations![LastAppliedAnnotation] = `${JSON.stringify(applied)}${text.endsWith('\n') ? '\n' : ''}`;
      }
    } catch {
      // not JSON: not kubectl's; left alone
    }
  }
  const managed = obj.metadata.managedFields;
  if (!Array.isArray(managed)) return;
  const leaf = `f:${LabelManagementCluster}`;
  // In place: the write has already taken hold of this array as the managedFields to record.
  for (let i = managed.length - 1; i >= 0; i--) if (!keepEntry(managed[i])) managed.splice(i, 1);
  function keepEntry(entry: unknown): boolean {
    const fields = (entry as { fieldsV1?: Record<string, Record<string, Record<string, unknown>>> }).fieldsV1;
    if (!fields || typeof fields !== 'object') return true;
    const meta = fields['f:metadata'];
    const labelSet = meta?.['f:labels'];
    if (!labelSet || typeof labelSet !== 'object' || !Object.hasOwn(labelSet, leaf)) return true;
    delete labelSet[leaf];
    if (Object.keys(labelSet).length === 0) delete meta['f:labels'];
    if (Object.keys(meta).length === 0) delete fields['f:metadata'];
    return Object.keys(fields).length > 0;
  }
}

/**
 * HyperShift's finalizer on a HostedCluster or NodePool that is not placed: an exported manifest
 * (`oc get -o yaml`) brings it, and no operator will ever remove it (a placed one has it removed
 * by its syncer once the copy is torn down). A delete drops it, so the object goes instead of
 * staying Terminating; a second delete of one stuck before this does the same.
 */
function unplacedFinalizers(obj: KubeObject, finalizers: string[]): string[] {
  if (obj.metadata.labels?.[LabelManagementCluster] !== undefined || !finalizers.includes(FinalizerHyperShift)) return finalizers;
  return finalizers.filter((f) => f !== FinalizerHyperShift);
}

/**
 * {@link unplacedFinalizers} for a HostedCluster, which also gets {@link FinalizerNodePools} when
 * it is not placed and NodePools not yet being deleted name it: the control center's NodePool
 * cleanup deletes them before the HostedCluster goes (no operator will: it was never placed).
 */
function unplacedHostedClusterFinalizers(obj: KubeObject, finalizers: string[], store: Pick<Store, 'list'>): string[] {
  const kept = unplacedFinalizers(obj, finalizers);
  const { namespace, name, labels } = obj.metadata;
  if (labels?.[LabelManagementCluster] !== undefined || kept.includes(FinalizerNodePools) || !namespace || !name) return kept;
  const named = store
    .list(storagePrefix(NodePoolResource, namespace))
    .items.some((it) => (it.object.spec as { clusterName?: unknown } | undefined)?.clusterName === name && !it.object.metadata.deletionTimestamp);
  return named ? [...kept, FinalizerNodePools] : kept;
}

/** The garbage collector's finalizers, which need no domain (metav1.FinalizerOrphanDependents, FinalizerDeleteDependents). */
const standardFinalizers = new Set(['orphan', 'foregroundDeletion']);

/**
 * Warnings for the finalizers a write of a custom resource adds (all of a new object's, those not
 * in `old` for an update), sorted: one without a `/` path that is not the garbage collector's,
 * `metadata.finalizers: "name": prefer a domain-qualified finalizer name including a path (/) to
 * avoid accidental conflicts with other finalizer writers`, as apiextensions-apiserver warns
 * (Argo CD's `resources-finalizer.argocd.argoproj.io` gets it there too).
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go (WarningsOnCreate, WarningsOnUpdate)
 */
export function finalizerWarnings(obj: KubeObject, old?: KubeObject): string[] {
  const had = new Set(old?.metadata.finalizers ?? []);
  const added = [...new Set(obj.metadata.finalizers ?? [])].filter((f) => typeof f === 'string' && !had.has(f)).sort();
  return added
    .filter((f) => !f.includes('/') && !standardFinalizers.has(f))
    .map((f) => `metadata.finalizers: ${JSON.stringify(f)}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`);
}

const definitions = new WeakMap<KubeObject, string>();

/**
 * What a served custom resource is defined by: the CRD's uid and a hash of its spec
 * (`uid/sha256-prefix`), which change when the CRD is created again or its spec changes, and only
 * then: kube-apiserver's crdHandler tears a CRD's storage down (ending its watches) when the uid,
 * the spec or the accepted names change, and ignores other updates (its `deletionTimestamp`, which
 * bumps `metadata.generation`, and its status). Cached per CRD object (one per version served).
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/customresource_handler.go (updateCustomResourceDefinition)
 */
function definitionOf(crd: KubeObject): string {
  let d = definitions.get(crd);
  if (d === undefined) {
    d = `${crd.metadata.uid ?? ''}/${createHash('sha256').update(JSON.stringify(crd.spec ?? null)).digest('hex').slice(0, 16)}`;
    definitions.set(crd, d);
  }
  return d;
}

/**
 * Builds the ResourceInfo of one version of a CRD.
 * @param opts.virtualHostedClusters - the control center's HostedClusters and NodePools (see unplacedFinalizers)
 */
export function customResourceInfo(crd: KubeObject, version: CRDVersion, opts: { virtualHostedClusters?: boolean } = {}): ResourceInfo {
  const spec = crd.spec as CRDSpec;
  const names = servedNames(crd);
  const storageVersion = spec.versions.find((v) => v.storage)?.name ?? version.name;
  const schema = version.schema?.openAPIV3Schema as JSONSchemaProps | undefined;
  const hasStatus = !!version.subresources?.status;
  const printer = (version.additionalPrinterColumns ?? []).map((c) => ({ ...c, path: compileJSONPath(c.jsonPath) }));
  const selectable = (version.selectableFields ?? []).map((f) => ({ name: f.jsonPath.replace(/^\./, ''), path: compileJSONPath(f.jsonPath) }));

  const columns: ColumnDefinition[] = printer.length
    ? [nameColumn, ...printer.map((c) => column(c.name, c.type, c.description ?? '', c.priority ?? 0, c.format ?? ''))]
    : [nameColumn, ageColumn];

  const placed = spec.group === HyperShiftGroup && (names.plural === 'hostedclusters' || names.plural === 'nodepools');
  const strategy = baseStrategy({
    // Only where no operator runs: in a management cluster the operator removes its own finalizer.
    ...(placed && opts.virtualHostedClusters ? { finalizersOnDelete: names.plural === 'hostedclusters' ? unplacedHostedClusterFinalizers : unplacedFinalizers } : {}),
    prepareForCreate: (obj, ctx) => {
      if (hasStatus) statusSubresource.keepStatusOnCreate(obj);
      if (placed) dropPlacementOnCreate(obj, ctx, names.kind);
    },
    validate: (obj, ctx) => checkAgainstSchema(obj, schema, names.kind, version.name, ctx),
    validateAsync: (obj, ctx) => checkNewAgainstSchema(obj, schema, names.kind, version.name, ctx, ctx.schemaChecker),
    prepareForUpdate: (obj, old, ctx, replaced) => {
      if (hasStatus) statusSubresource.keepOldStatus(obj, old);
      if (placed) keepPlacementLabel(obj, old, ctx, replaced === true, names.kind);
    },
    validateUpdate: (obj, old, ctx) => checkAgainstSchema(obj, schema, names.kind, version.name, ctx, old),
    warnings: finalizerWarnings,
    ...(hasStatus ? { prepareForStatusUpdate: statusSubresource.prepareForStatusUpdate } : {}),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    selectableFields: (obj) => {
      const out: Record<string, string> = {};
      for (const f of selectable) {
        const v = f.path.evaluate(obj)[0];
        out[f.name] = v === undefined || v === null ? '' : String(v);
      }
      return out;
    },
    tableColumns: () => columns,
    tableCells: (obj, now) =>
      printer.length
        ? [obj.metadata.name, ...printer.map((c) => printerColumnCell(c.path.evaluate(obj), c.type as never, now))]
        : [obj.metadata.name, age(obj.metadata.creationTimestamp, now)],
    bumpsGeneration: (obj, old) =>
      hasStatus ? !isDeepStrictEqual(specPart(obj), specPart(old)) : !isDeepStrictEqual({ ...obj, metadata: undefined }, { ...old, metadata: undefined }),
  });

  return {
    group: spec.group,
    version: version.name,
    resource: names.plural,
    kind: names.kind,
    listKind: names.listKind,
    singular: names.singular,
    shortNames: names.shortNames,
    categories: names.categories,
    namespaced: spec.scope === 'Namespaced',
    // A terminating CRD's discovery drops the writes, as apiextensions' discovery controller does
    // (updates are still served: finalizers must come off; creates get a 405).
    verbs: crd.metadata.deletionTimestamp ? ['delete', 'deletecollection', 'get', 'list', 'watch'] : ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    subresources: { status: hasStatus, ...(version.subresources?.scale ? { scale: version.subresources.scale } : {}) },
    storageVersion,
    strategy,
    schema: schema as Record<string, unknown> | undefined,
    custom: true,
    definition: definitionOf(crd),
    ...(crd.metadata.deletionTimestamp ? { terminating: true } : {}),
    ...(version.deprecated ? { deprecationWarning: version.deprecationWarning ?? defaultDeprecationWarning(version.name, spec) } : {}),
  };
}
