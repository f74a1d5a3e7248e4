/**
 * What the registry knows about each served resource, and the per-resource strategy the generic
 * handlers call, after k8s.io/apiserver's `rest.RESTCreateStrategy`/`RESTUpdateStrategy`.
 * Handlers know verbs; strategies know resources.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/registry/rest/create.go
 */
import type { KubeObject } from '@hcc/crds';
import type { FieldError } from '../apierrors/field.js';
import type { SchemaChecker } from './schema/validation-pool.js';
import type { Store } from '../storage/store.js';

/** metav1.TableColumnDefinition. */
export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** How `fieldValidation` asks the server to treat unknown or duplicate fields. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Per-request context a strategy may use. */
export interface StrategyContext {
  fieldValidation: FieldValidation;
  /** Warnings to send in `Warning` headers (`299 - "text"`). */
  warnings: string[];
  /** Current time (injected so tests control it). */
  now: Date;
  /**
   * Validating admission with the requesting user (absent for the server's own writes). The
   * operation is CREATE without `old`, UPDATE with it, unless given (DELETE: `obj` is `old`).
   * @throws StatusError 403 when the user may not make this change at all
   */
  admit?: (info: ResourceInfo, obj: KubeObject, old: KubeObject | undefined, operation?: 'DELETE') => FieldError[];
  /** Where schema checks of new custom resources run (validation workers); absent: in-process. */
  schemaChecker?: SchemaChecker;
  /**
   * Strict-decoding errors the body decoder found (duplicate fields: `duplicate field "spec.x"`),
   * reported with the unknown fields by the kind's decoding ({@link takeStrictErrors}).
   */
  strictErrors?: string[];
  /** Groups of the requesting user (absent for the server's own writes). */
  userGroups?: readonly string[];
  /** Namespaces a request may not delete besides default, kube-system and kube-public (the server's own). */
  immortalNamespaces?: ReadonlySet<string>;
  /**
   * The names the other CRDs of an API group have been accepted under (their
   * `status.acceptedNames`): plural, singular and short names in `resources`, kind and list kind in
   * `kinds`; what a CRD's NamesAccepted condition is decided against (kube's NamingConditionController).
   * Absent (the server's own writes): no conflicts.
   */
  crdNamesInUse?: (group: string, exceptCRD: string) => { resources: ReadonlySet<string>; kinds: ReadonlySet<string> };
}

/**
 * Where the body decoder puts duplicate fields for this request: the request context's list, or
 * undefined under `fieldValidation=Ignore` (not looked for).
 */
export function strictErrorsOf(ctx: StrategyContext): string[] | undefined {
  if (ctx.fieldValidation === 'Ignore') return undefined;
  return (ctx.strictErrors ??= []);
}

/** Takes (once: later calls get []) the decoder's strict-decoding errors of this request. */
export function takeStrictErrors(ctx: StrategyContext): string[] {
  const errs = ctx.strictErrors ?? [];
  ctx.strictErrors = undefined;
  return errs;
}

/**
 * The context of a write the server makes on its own (controllers, start-up): unknown fields
 * ignored, warnings collected and dropped, no admission.
 * @param now - the write's time (default: the current time)
 */
export const systemContext = (now: Date = new Date()): StrategyContext => ({ fieldValidation: 'Ignore', warnings: [], now });

/** Resource-specific behaviour the generic create/update/patch/delete handlers call. */
export interface Strategy {
  /**
   * The finalizers an object keeps when a delete starts (or is asked again): drops those nothing
   * will ever remove, adds those whose controller must act before it goes (optional; default:
   * all are kept). `store` reads other objects (committed state).
   */
  finalizersOnDelete?(obj: KubeObject, finalizers: string[], store: Pick<Store, 'list'>): string[];
  /** Clears or defaults fields on create (e.g. drops `status` when a status subresource exists). */
  prepareForCreate(obj: KubeObject, ctx: StrategyContext): void;
  /**
   * The fields `prepareForCreate` will set that the request, `obj` as it arrived, does not carry,
   * as paths (`[['spec', 'finalizers']]`): no manager owns them, as kube-apiserver's field manager
   * runs before the strategy's PrepareForCreate (optional; default: none).
   */
  systemFieldsOnCreate?(obj: KubeObject): string[][];
  /** Validates a new object (metadata checks are done by the handler). */
  validate(obj: KubeObject, ctx: StrategyContext): FieldError[];
  /**
   * The same as `validate`, with the read-only part of the check run by `ctx.schemaChecker`
   * (custom resources). The handler of a create calls it instead of `validate` when both exist.
   */
  validateAsync?(obj: KubeObject, ctx: StrategyContext & { schemaChecker: SchemaChecker }): Promise<FieldError[]>;
  /**
   * Carries over what an update of the main resource may not change (e.g. `status`).
   * @param replaced - true for a PUT (the body is the whole new object, so what it leaves out may
   *   just be unknown to its writer); false for a PATCH or apply, which removes fields on purpose
   */
  prepareForUpdate(obj: KubeObject, old: KubeObject, ctx: StrategyContext, replaced?: boolean): void;
  /** Validates an update. */
  validateUpdate(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
  /**
   * Warnings about a valid new object or main-resource update (`old` set), sent in `Warning`
   * headers, as a kube strategy's WarningsOnCreate/WarningsOnUpdate (status updates get none).
   * Absent: none.
   */
  warnings?(obj: KubeObject, old?: KubeObject): string[];
  /**
   * Status subresource: the object to store, which is everything from old but `status` (taken from
   * obj) and obj's resourceVersion precondition. Absent: no status subresource.
   */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): KubeObject;
  /**
   * Validates a status update; absent: `validateUpdate` does (as the status strategies of most
   * kinds share their main strategy's validation).
   */
  validateStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
  /**
   * Finalize subresource (Namespaces' `/finalize`): the object to store, which is everything from
   * old but what the kind's finalize changes (`spec.finalizers`). Absent: no finalize subresource.
   * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/namespace/strategy.go (namespaceFinalizeStrategy)
   */
  prepareForFinalize?(obj: KubeObject, old: KubeObject): KubeObject;
  /** Validates a finalize update. */
  validateFinalize?(obj: KubeObject): FieldError[];
  /**
   * Finalizers of the kind's own besides `metadata.finalizers` (a Namespace's `spec.finalizers`):
   * an object being deleted goes only once both are empty. Absent: none.
   */
  specFinalizers?(obj: KubeObject): string[];
  /** Whether PUT may create a missing object (Leases and Events: yes). */
  allowCreateOnUpdate: boolean;
  /** Whether PUT without resourceVersion is allowed (built-ins: yes; custom resources: no). */
  allowUnconditionalUpdate: boolean;
  /** Fields usable in field selectors, beyond metadata.name and metadata.namespace. */
  selectableFields(obj: KubeObject): Record<string, string>;
  /** Table columns (the first is Name), then one row's cells per object. */
  tableColumns(): ColumnDefinition[];
  tableCells(obj: KubeObject, now: Date): unknown[];
  /** Whether a change from old to obj bumps `metadata.generation` (spec changes do). */
  bumpsGeneration(obj: KubeObject, old: KubeObject): boolean;
}

/** One served resource (one group-version-resource). */
export interface ResourceInfo {
  group: string;
  version: string;
  /** Lowercase plural, e.g. `hostedclusters`. */
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  verbs: string[];
  /** Subresources served; `status` and `scale` as in CRDs. */
  subresources: {
    status: boolean;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
    /** `/finalize` (Namespaces): PUT only; see {@link Strategy.prepareForFinalize}. */
    finalize?: boolean;
  };
  /** Version objects are stored in (custom resources with several versions). */
  storageVersion: string;
  strategy: Strategy;
  /** The OpenAPI v3 schema of the kind, when there is one (custom resources). */
  schema?: Record<string, unknown>;
  /** True for resources defined by a CRD. */
  custom: boolean;
  /** Defined by a CRD being deleted: still served (so the cleanup can delete its objects) but takes no creates. */
  terminating?: boolean;
  /**
   * A CRD version marked `deprecated: true`: the `Warning` every request to it gets (its
   * `deprecationWarning`, or apiextensions' default `<group>/<version> <Kind> is deprecated; use
   * <group>/<newer version> <Kind>`).
   */
  deprecationWarning?: string;
  /**
   * For a resource defined by a CRD: that CRD's uid and a hash of its spec, which change when it is
   * created again or its spec changes (not when it is being deleted: its `deletionTimestamp` bumps
   * its generation). A watch ends when the resource it serves is no longer defined by the same (see
   * handlers/watch.ts), as kube-apiserver's apiextensions handler tears down a CRD's storage, and
   * with it every watch, when the CRD is gone or its spec changes.
   */
  definition?: string;
}

/** `group/resource` key, e.g. `hypershift.openshift.io/hostedclusters` or `/secrets`. */
export const groupResourceKey = (group: string, resource: string): string => `${group}/${resource}`;

/** The storage key prefix of a resource: `/{group or core}/{resource}/`. */
export function storagePrefix(info: Pick<ResourceInfo, 'group' | 'resource'>, namespace?: string): string {
  const base = `/${info.group || 'core'}/${info.resource}/`;
  return namespace ? `${base}${namespace}/` : base;
}

/** The storage key of one object. */
export function storageKey(info: Pick<ResourceInfo, 'group' | 'resource' | 'namespaced'>, namespace: string, name: string): string {
  return info.namespaced ? `${storagePrefix(info, namespace)}${name}` : `${storagePrefix(info)}${name}`;
}
