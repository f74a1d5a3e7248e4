/**
 * Evaluates CRD `x-kubernetes-validations` (CEL) rules on a custom resource the way
 * kube-apiserver v1.34 does (apiextensions-apiserver pkg/apiserver/schema/cel, validation.go).
 *
 * Guaranteed:
 * - Every schema node with rules is visited where the object has a non-null value: properties,
 *   `additionalProperties` values (path `a[key]`), list items (path `a[0]`) and `allOf` overlays.
 *   `self` is the value at the node, typed by the schema (see cel-values.ts).
 * - Transition rules (rules that mention `oldSelf`) run only when an old value correlates with the
 *   node: map fields by name, list-type map items by their map keys; items of atomic and set lists
 *   never correlate. With `optionalOldSelf: true` they always run and `oldSelf` is an optional.
 * - Ratcheting (CRDValidationRatcheting, GA in 1.33): on update, a failing rule that does not use
 *   `oldSelf` on a value equal to its correlated old value (or inside an uncorrelatable part of an
 *   unchanged ancestor) becomes a warning instead of an error.
 * - Errors read like upstream's: `spec: Invalid value: "object": <message>` (v1.34 prints the
 *   schema type as the value; v1.35 prints scalars and omits objects), `<nil>` for rules on the
 *   root; `message`, else the evaluated `messageExpression`, else `failed rule: <rule>`; `reason`
 *   picks Forbidden/Required/Duplicate; `fieldPath` is appended to the node's path. A rule that
 *   evaluates with an error (`no such key: x`, ...) fails with `<error> evaluating rule: <message>`.
 *
 * Not guaranteed: rules hcc cannot compile or run (see cel-compile.ts) are skipped and counted in
 * `unsupportedRules`. CEL cost budgets are approximated: a wall-clock budget per object and a
 * guard on `(largest list)^(macro nesting)`; either one stops validation with upstream's
 * "running out of cost budget" / "call cost exceeds limit" error.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/cel/common/equality.go (ratcheting)
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules
 */
import { EvaluationError, Optional } from '@marcbachmann/cel-js';
import * as field from '../../apierrors/field.js';
import type { FieldError } from '../../apierrors/field.js';
import { compileExpression, errorSummary, noteUnsupported, type CompiledExpression } from './cel-compile.js';
import { kubernetesErrorCode } from './cel-library.js';
import { correlateMapListItem, isMapList, mapListKey, sizeOf, toCEL, toCELAligned, type ConversionCache } from './cel-values.js';
import type { JSONSchemaProps, ValidationRule } from './types.js';
import { additionalOf, isJSONObject, itemsOf, jsonEqual } from './validate.js';
import { compiledCache } from './compiled.js';

export { unsupportedRules, resetUnsupportedRules, type UnsupportedRule } from './cel-compile.js';

/** Default wall-clock budget for all rules of one object, in milliseconds (stands in for RuntimeCELCostBudget). */
export const defaultCELBudgetMs = 1000;
/** celconfig.PerCallLimit: the most one rule evaluation may cost; estimated here as `(largest list)^(macro nesting)`. */
export const perCallLimit = 1_000_000;
/** celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const maxMessageExpressionBytes = 5 * 1024;

/** Options of {@link validateCEL}. */
export interface CELValidationOptions {
  /** The stored object on update (enables transition rules and ratcheting); absent on create. */
  oldObj?: Record<string, unknown>;
  /** Wall-clock budget for all rules of this object, in milliseconds; default {@link defaultCELBudgetMs}. */
  budgetMs?: number;
  /** Clock in milliseconds (tests); default `performance.now`. */
  now?: () => number;
}

/** Outcome of {@link validateCEL}. */
export interface CELValidationResult {
  /** Failed rules, in schema walk order. */
  errors: FieldError[];
  /** Ratcheted failures (`path: Invalid value: ...`), for the response's `Warning` headers. */
  warnings: string[];
}

// ---------------------------------------------------------------------------------------------
// ratcheting (k8s.io/apiserver/pkg/cel/common.CorrelatedObject)

/** A new value, its correlated old value and schema; caches deep equality. */
class Correlated {
  private equal?: boolean;

  constructor(
    readonly value: unknown,
    readonly old: unknown,
    readonly schema: JSONSchemaProps | undefined,
  ) {}

  /** The child at `key` when both old and new objects have it and the schema knows it. */
  key(key: string): Correlated | undefined {
    if (!this.schema || !isJSONObject(this.value) || !isJSONObject(this.old)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(this.value, key) || !Object.prototype.hasOwnProperty.call(this.old, key)) return undefined;
    const props = this.schema.properties;
    const s = props && Object.prototype.hasOwnProperty.call(props, key) ? props[key] : additionalOf(this.schema);
    return s ? new Correlated(this.value[key], this.old[key], s) : undefined;
  }

  /** The item at `i` of a list-type map, with the old item of the same keys. */
  index(i: number): Correlated | undefined {
    if (!this.schema || !Array.isArray(this.value) || i >= this.value.length || !Array.isArray(this.old)) return undefined;
    const old = correlateMapListItem(this.schema, this.old, this.value[i]);
    const items = itemsOf(this.schema);
    return old === undefined || !items ? undefined : new Correlated(this.value[i], old, items);
  }

  /** CorrelatedObject.CachedDeepEqual. */
  deepEqual(): boolean {
    this.equal ??= this.computeEqual();
    return this.equal;
  }

  private computeEqual(): boolean {
    const [v, o] = [this.value, this.old];
    if ((v === null || v === undefined) && (o === null || o === undefined)) return true;
    if (v === null || v === undefined || o === null || o === undefined) return false;
    if (Array.isArray(v) || Array.isArray(o)) {
      if (!Array.isArray(v) || !Array.isArray(o) || v.length !== o.length) return false;
      if (!isMapList(this.schema)) return jsonEqual(v, o);
      return v.every((_, i) => this.index(i)?.deepEqual() ?? false);
    }
    if (isJSONObject(v) || isJSONObject(o)) {
      if (!isJSONObject(v) || !isJSONObject(o) || Object.keys(v).length !== Object.keys(o).length) return false;
      return Object.keys(v).every((k) => this.key(k)?.deepEqual() ?? false);
    }
    return jsonEqual(v, o);
  }
}

/** validation.go ratchetingOptions. */
interface Ratcheting {
  current?: Correlated;
  nearestParent?: Correlated;
}

const ratchetKey = (r: Ratcheting, key: string): Ratcheting => {
  if (!r.current) return r;
  if (!r.nearestParent && (key === 'apiVersion' || key === 'kind')) return {};
  return { current: r.current.key(key), nearestParent: r.current };
};
const ratchetIndex = (r: Ratcheting, i: number): Ratcheting => (r.current ? { current: r.current.index(i), nearestParent: r.current } : r);
const shouldRatchet = (r: Ratcheting): boolean => (r.current ? r.current.deepEqual() : (r.nearestParent?.deepEqual() ?? false));

// ---------------------------------------------------------------------------------------------
// compiled rules per schema node

interface CompiledRule {
  rule: ValidationRule;
  expr: CompiledExpression;
  message?: CompiledExpression;
}

const rulesBySchema = new WeakMap<JSONSchemaProps, CompiledRule[]>();

function compiledRules(s: JSONSchemaProps): CompiledRule[] {
  let out = rulesBySchema.get(s);
  if (!out) {
    out = (s['x-kubernetes-validations'] ?? [])
      .filter((r) => typeof r?.rule === 'string' && r.rule.trim() !== '')
      .map((rule) => ({ rule, expr: compileExpression(rule.rule), ...(rule.messageExpression ? { message: compileExpression(rule.messageExpression) } : {}) }));
    rulesBySchema.set(s, out);
  }
  return out;
}

const hasRulesCache = new WeakMap<JSONSchemaProps, boolean>();

/** Whether a schema holds any `x-kubernetes-validations` on its structural spine or in allOf (upstream: a CEL validator exists). */
export function hasValidationRules(s: JSONSchemaProps | undefined): boolean {
  if (!s || typeof s !== 'object') return false;
  let has = hasRulesCache.get(s);
  if (has === undefined) {
    has =
      (s['x-kubernetes-validations']?.length ?? 0) > 0 ||
      hasValidationRules(itemsOf(s)) ||
      hasValidationRules(additionalOf(s)) ||
      Object.values(s.properties ?? {}).some(hasValidationRules) ||
      (s.allOf ?? []).some(hasValidationRules);
    hasRulesCache.set(s, has);
  }
  return has;
}

// ---------------------------------------------------------------------------------------------
// messages

/** validation.go ruleErrorString. */
const ruleErrorString = (r: ValidationRule): string => (r.message?.trim() ? r.message.trim() : r.rule.trim());
/** validation.go ruleMessageOrDefault. */
const ruleMessageOrDefault = (r: ValidationRule): string => (r.message?.trim() ? r.message.trim() : `failed rule: ${ruleErrorString(r)}`);

/** A rendered path: `''` (the root) prints as Go's nil field.Path, `<nil>`. */
const shownPath = (path: string): string => path || '<nil>';

/** The value upstream (v1.34) prints for a failed rule: the schema type of the node. */
const typeValue = (s: JSONSchemaProps): string => s.type ?? '';

/** validation.go fieldErrorForReason. */
function fieldErrorForReason(path: string, value: string, detail: string, reason: ValidationRule['reason']): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return field.forbidden(shownPath(path), detail);
    case 'FieldValueRequired':
      return field.required(shownPath(path), detail);
    case 'FieldValueDuplicate':
      return field.duplicate(shownPath(path), value);
    default:
      return field.invalid(shownPath(path), value, detail);
  }
}

/**
 * ValidFieldPath, normalized: `.a.b` / `['a.b']` → `a.b` / `a.b` (properties) or `a[k]` (map keys).
 * @returns undefined for a path that does not name a field of the schema (upstream rejects the CRD)
 */
export function normalizeRuleFieldPath(jsonPath: string, s: JSONSchemaProps): string | undefined {
  const tokens = jsonPath.match(/\['(?:[^'\\]|\\.)*'\]|\.[^.[\]]+|./g) ?? [];
  let out = '';
  let node: JSONSchemaProps | undefined = s;
  for (const t of tokens) {
    let name: string;
    if (t.startsWith("['")) name = t.slice(2, -2).replace(/\\(.)/g, '$1');
    else if (t.startsWith('.') && t.length > 1) name = t.slice(1);
    else return undefined;
    if (!node) return undefined;
    if (node.properties) {
      if (!Object.prototype.hasOwnProperty.call(node.properties, name)) return undefined;
      out = out ? `${out}.${name}` : name;
      node = node.properties[name];
    } else if (additionalOf(node)) {
      out = `${out}[${name}]`;
      node = additionalOf(node);
    } else return undefined;
  }
  return out || undefined;
}

const rejectCodes = new Set([
  'no_such_key',
  'index_out_of_bounds',
  'division_by_zero',
  'modulo_by_zero',
  'numeric_overflow',
  'invalid_duration',
  'invalid_timestamp',
  'int_conversion_error',
  'uint_conversion_error',
  'double_conversion_error',
  'bool_conversion_error',
  kubernetesErrorCode,
]);

/** cel-go's wording of a runtime error that rejects the object; undefined when the failure means "unsupported here". */
function runtimeErrorMessage(e: unknown): string | undefined {
  if (!(e instanceof EvaluationError) || !rejectCodes.has(e.code)) return undefined;
  const s = errorSummary(e);
  if (e.code === 'no_such_key') return s.replace(/^No such key/, 'no such key');
  if (e.code === 'index_out_of_bounds') return `index out of bounds: ${/index (-?\d+)/.exec(s)?.[1] ?? s}`;
  // cel-go's errIntOverflow / errUintOverflow name no value.
  if (e.code === 'numeric_overflow') return /unsigned/i.test(s) ? 'unsigned integer overflow' : 'integer overflow';
  return s;
}

// ---------------------------------------------------------------------------------------------
// the walk

interface Walk {
  errors: FieldError[];
  warnings: string[];
  deadline: number;
  now: () => number;
  cache: ConversionCache;
  stopped: boolean;
}

function evalMessageExpression(w: Walk, expr: CompiledExpression, source: string, activation: Record<string, unknown>): string | undefined {
  if (!expr.ok) {
    noteUnsupported(source, expr.reason);
    return undefined;
  }
  try {
    const msg = expr.program(activation);
    if (typeof msg !== 'string') return undefined;
    const trimmed = msg.trim();
    if (trimmed === '' || /\n/.test(trimmed) || Buffer.byteLength(trimmed) > maxMessageExpressionBytes) return undefined;
    return trimmed;
  } catch (e) {
    if (runtimeErrorMessage(e) === undefined) noteUnsupported(source, errorSummary(e));
    return undefined;
  }
}

/** validation.go validateExpressions: the rules of one node. */
function validateExpressions(w: Walk, val: RuleNode, node: RuleNode, value: unknown, old: unknown, path: string, r: Ratcheting, isResourceRoot: boolean): void {
  const rules = val.rules;
  if (rules.length === 0) return;
  const nodeS = node.s;
  const type = typeValue(nodeS);
  if (w.now() > w.deadline) {
    w.errors.push(field.invalid(shownPath(path), type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
    w.stopped = true;
    return;
  }
  const hasOld = old !== null && old !== undefined;
  let self: unknown;
  let oldSelf: unknown;
  let size: { maxLength: number } | undefined;
  // One activation per node, rebuilt only when oldSelf is bound (cel-js only reads it).
  let activation: Record<string, unknown> | undefined;
  let activationHasOld = false;
  for (const { rule, expr, message } of rules) {
    if (!expr.ok) {
      noteUnsupported(rule.rule, expr.reason);
      continue;
    }
    const optionalOldSelf = rule.optionalOldSelf === true;
    if (expr.usesOldSelf && !hasOld && !optionalOldSelf) continue;
    self ??= toCEL(value, nodeS, isResourceRoot, w.cache);
    if (hasOld && (expr.usesOldSelf || (message?.ok && message.usesOldSelf))) oldSelf ??= toCELAligned(old, nodeS, value, isResourceRoot);
    const withOld = hasOld && oldSelf !== undefined;
    if (!activation || withOld !== activationHasOld) {
      activation = withOld ? { self, oldSelf } : { self };
      activationHasOld = withOld;
    }
    const ruleActivation = optionalOldSelf ? { self, oldSelf: hasOld ? Optional.of(oldSelf) : Optional.none() } : activation;
    if (expr.macroDepth > 0) {
      size ??= sizeOf(hasOld ? [value, old] : value);
      if (size.maxLength ** expr.macroDepth > perCallLimit) {
        w.errors.push(
          field.invalid(
            shownPath(path),
            type,
            `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
          ),
        );
        w.stopped = true;
        return;
      }
    }
    let result: unknown;
    try {
      result = expr.program(ruleActivation);
    } catch (e) {
      const msg = runtimeErrorMessage(e);
      if (msg === undefined) noteUnsupported(rule.rule, errorSummary(e));
      else w.errors.push(field.invalid(shownPath(path), type, `${msg} evaluating rule: ${ruleErrorString(rule)}`));
      continue;
    }
    if (result === true) continue;
    let fieldPath = path;
    if (rule.fieldPath) {
      const normalized = normalizeRuleFieldPath(rule.fieldPath, nodeS);
      if (normalized) fieldPath = path ? `${path}.${normalized}` : normalized;
    }
    const detail = (message && rule.messageExpression && evalMessageExpression(w, message, rule.messageExpression, activation)) || ruleMessageOrDefault(rule);
    const err = fieldErrorForReason(fieldPath, type, detail, rule.reason);
    if (!expr.usesOldSelf && shouldRatchet(r)) w.warnings.push(field.fieldErrorMessage(err));
    else w.errors.push(err);
  }
}

/** The old items of a list-type map by key, first one wins (common.MapList); undefined for other lists. */
function oldMapListIndex(s: JSONSchemaProps, old: unknown): Map<string, unknown> | undefined {
  if (!isMapList(s) || !Array.isArray(old)) return undefined;
  const out = new Map<string, unknown>();
  for (const o of old) {
    const k = mapListKey(s, o);
    if (k !== undefined && !out.has(k)) out.set(k, o);
  }
  return out;
}

/**
 * A schema node compiled for the CEL walk (cached by schema identity: a schema must not be mutated
 * after its first use): its rules, and only the children whose subtree has rules.
 */
class RuleNode {
  readonly rules: CompiledRule[];
  readonly hasRules: boolean;
  readonly embedded: boolean;
  /** Map fields correlate with old values by key (`x-kubernetes-map-type` unset, granular or atomic). */
  readonly correlatable: boolean;
  readonly hasProperties: boolean;
  allOf: RuleNode[] = [];
  items: RuleNode | undefined;
  additional: RuleNode | undefined;
  /** Every declared property (the node side of a walk). */
  readonly props = new Map<string, RuleNode>();
  /** Declared properties whose subtree has rules (the rule side of a walk). */
  readonly ruleProps = new Map<string, RuleNode>();

  constructor(readonly s: JSONSchemaProps) {
    this.rules = compiledRules(s);
    this.hasRules = hasValidationRules(s);
    this.embedded = !!s['x-kubernetes-embedded-resource'];
    this.correlatable = [undefined, 'granular', 'atomic'].includes(s['x-kubernetes-map-type']);
    this.hasProperties = !!s.properties;
  }

  link(): void {
    const s = this.s;
    this.allOf = (s.allOf ?? []).map(ruleNodeOf);
    const items = itemsOf(s);
    if (items) this.items = ruleNodeOf(items);
    const ap = additionalOf(s);
    if (ap) this.additional = ruleNodeOf(ap);
    const props = s.properties ?? {};
    for (const k of Object.keys(props)) {
      const ps = props[k];
      if (!ps) continue;
      const n = ruleNodeOf(ps);
      this.props.set(k, n);
      if (n.hasRules) this.ruleProps.set(k, n);
    }
  }
}

const ruleNodeOf = compiledCache((s) => new RuleNode(s));

/** validation.go validate: a node's rules, its allOf overlays, then its children (only those whose subtree has rules). */
function walk(w: Walk, val: RuleNode, node: RuleNode, value: unknown, old: unknown, path: string, r: Ratcheting, isResourceRoot: boolean): void {
  if (w.stopped || value === null || value === undefined) return;
  if (val.rules.length) validateExpressions(w, val, node, value, old, path, r, isResourceRoot);
  for (const overlay of val.allOf) {
    if (w.stopped) return;
    walk(w, overlay, node, value, old, path, { nearestParent: r.nearestParent }, isResourceRoot);
  }
  if (Array.isArray(value)) {
    const [vItems, nItems] = [val.items, node.items];
    if (!vItems || !nItems || !vItems.hasRules) return;
    const oldByKey = oldMapListIndex(node.s, old);
    for (let i = 0; i < value.length; i++) {
      if (w.stopped) return;
      const x = value[i];
      const key = oldByKey && mapListKey(node.s, x);
      const oldItem = key === undefined ? undefined : oldByKey?.get(key);
      walk(w, vItems, nItems, x, oldItem, `${path}[${i}]`, ratchetIndex(r, i), nItems.embedded);
    }
  } else if (isJSONObject(value)) {
    const oldMap = isJSONObject(old) ? old : undefined;
    const correlatable = node.correlatable;
    const [vAP, nAP] = [val.additional, node.additional];
    if (vAP && nAP && vAP.hasRules) {
      for (const k of Object.keys(value)) {
        if (w.stopped) return;
        walk(w, vAP, nAP, value[k], correlatable ? oldMap?.[k] : undefined, `${path}[${k}]`, ratchetKey(r, k), nAP.embedded);
      }
    }
    if (!val.hasProperties || !node.hasProperties || val.ruleProps.size === 0) return;
    for (const k of Object.keys(value)) {
      if (w.stopped) return;
      if (isResourceRoot && k === 'metadata') continue;
      const vp = val.ruleProps.get(k);
      const np = vp && node.props.get(k);
      if (!vp || !np) continue;
      walk(w, vp, np, value[k], correlatable ? oldMap?.[k] : undefined, path ? `${path}.${k}` : k, ratchetKey(r, k), np.embedded);
    }
  }
}

/**
 * Evaluates every `x-kubernetes-validations` rule of `schema` against a custom resource.
 * Call only after structural validation found no blocking error (see `hasBlockingError` in index.ts).
 * @param obj - the whole object (apiVersion, kind, metadata, ...), already pruned and defaulted
 * @param schema - the CRD version's `openAPIV3Schema`
 * @returns failed rules as FieldErrors (root rules at `<nil>`) and ratcheted failures as warnings
 */
export function validateCEL(obj: Record<string, unknown>, schema: JSONSchemaProps, opts: CELValidationOptions = {}): CELValidationResult {
  const w: Walk = { errors: [], warnings: [], deadline: 0, now: opts.now ?? (() => performance.now()), cache: new Map(), stopped: false };
  if (!hasValidationRules(schema)) return w;
  w.deadline = w.now() + (opts.budgetMs ?? defaultCELBudgetMs);
  const ratcheting: Ratcheting = opts.oldObj ? { current: new Correlated(obj, opts.oldObj, schema) } : {};
  const root = ruleNodeOf(schema);
  walk(w, root, root, obj, opts.oldObj, '', ratcheting, true);
  return { errors: w.errors, warnings: w.warnings };
}
