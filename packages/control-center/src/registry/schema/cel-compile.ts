/**
 * Compiles `x-kubernetes-validations` rules with @marcbachmann/cel-js plus the Kubernetes library
 * (cel-library.ts), once per rule text, and keeps the `unsupportedRules` diagnostic.
 *
 * Contract: a rule that does not parse or type-check here (an unknown function, a pattern RE2
 * refuses, a macro cel-js lacks, ...) is *unsupported*: it is never evaluated, never rejects an object, is
 * not logged, and is counted in {@link unsupportedRules}. The same holds for a rule whose
 * evaluation fails because a function or overload is missing at run time (`self` is bound as
 * `dyn`, so cel-js can only resolve some overloads while evaluating). This is the safe choice for
 * a control center that is not the real operator: a real management cluster still enforces every
 * rule when the syncer applies the object. Upstream instead rejects CRDs whose rules do not compile.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go
 */
import { Environment, type ASTNode, type ParseResult } from '@marcbachmann/cel-js';
import { registerKubernetesLibrary, replacedFunctions } from './cel-library.js';

/** The name rules use for the value at their node. */
export const ScopedVarName = 'self';
/** The name transition rules use for the old value at their node. */
export const OldScopedVarName = 'oldSelf';

/** Why and how often a rule was skipped. */
export interface UnsupportedRule {
  /** The rule (or messageExpression) text. */
  rule: string;
  /** The first reason seen, e.g. `found no matching overload for 'dyn.foo()'`. */
  reason: string;
  /** How many evaluations were skipped (compile failures count once per evaluation attempt). */
  skipped: number;
}

const unsupported = new Map<string, UnsupportedRule>();

/**
 * Rules hcc could not compile or evaluate, by rule text, since start (or the last
 * {@link resetUnsupportedRules}). A coverage diagnostic for tests and debugging; never logged.
 */
export const unsupportedRules: ReadonlyMap<string, UnsupportedRule> = unsupported;

/** Clears {@link unsupportedRules} (tests). */
export function resetUnsupportedRules(): void {
  unsupported.clear();
}

/** Records one skipped evaluation of `rule`. */
export function noteUnsupported(rule: string, reason: string): void {
  const u = unsupported.get(rule);
  if (u) u.skipped++;
  else unsupported.set(rule, { rule, reason, skipped: 1 });
}

/** A compiled expression, or why it is unsupported. */
export type CompiledExpression =
  | {
      ok: true;
      program: ParseResult;
      /** The expression references `oldSelf` (a transition rule). */
      usesOldSelf: boolean;
      /** The deepest nesting of comprehension macros (all, exists, map, ...): the exponent of the cost guard. */
      macroDepth: number;
    }
  | { ok: false; reason: string };

const comprehensions = new Set(['all', 'exists', 'exists_one', 'map', 'filter', 'sort', 'sortBy', 'distinct']);

function inspect(node: unknown, acc: { oldSelf: boolean }): number {
  if (!node || typeof node !== 'object') return 0;
  const n = node as ASTNode;
  if (n.op === 'id') {
    if (n.args === OldScopedVarName) acc.oldSelf = true;
    return 0;
  }
  const children: unknown[] = [];
  const push = (a: unknown): void => {
    if (Array.isArray(a)) a.forEach(push);
    else if (a && typeof a === 'object') children.push(a);
  };
  push(n.args);
  const inner = Math.max(0, ...children.map((c) => inspect(c, acc)));
  const isMacro = (n.op === 'rcall' || n.op === 'call') && comprehensions.has((n.args as unknown[])[0] as string);
  return inner + (isMacro ? 1 : 0);
}

/**
 * Points every call of a function cel-js implements differently from cel-go (`self.indexOf(...)`,
 * `self.matches(...)`, `matches(s, re)`, ...) at hcc's version ({@link replacedFunctions}), in
 * place, before the expression is type-checked or evaluated (macro bodies included: their nodes
 * are the same objects).
 */
function useKubernetesFunctions(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) useKubernetesFunctions(n);
    return;
  }
  const n = node as ASTNode;
  if ((n.op === 'rcall' || n.op === 'call') && Array.isArray(n.args) && typeof n.args[0] === 'string') {
    const name = n.args[0];
    const replaced = replacedFunctions.get(name);
    if (replaced && (n.op === 'rcall' || name === 'matches')) (n.args as unknown[])[0] = replaced;
  }
  const args = n.args as unknown;
  if (Array.isArray(args)) useKubernetesFunctions(args);
  else if (args && typeof args === 'object') {
    // A unary operator's (`!`, `-`) one argument is a node itself; a comprehension's are named fields.
    if ('op' in args) useKubernetesFunctions(args);
    else for (const a of Object.values(args)) useKubernetesFunctions(a);
  }
}

/** The Kubernetes CEL environment: `self` and `oldSelf` as dyn, optionals on, heterogeneous literals allowed. */
function makeEnvironment(): Environment {
  const env = new Environment({
    unlistedVariablesAreDyn: false,
    homogeneousAggregateLiterals: false,
    enableOptionalTypes: true,
    limits: { maxAstNodes: 10_000, maxDepth: 100, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 },
  });
  env.registerVariable(ScopedVarName, 'dyn').registerVariable(OldScopedVarName, 'dyn');
  return registerKubernetesLibrary(env);
}

let environment: Environment | undefined;
const compiled = new Map<string, CompiledExpression>();

/** The first line of a cel-js error message (the rest highlights the source). */
export const errorSummary = (e: unknown): string => (e instanceof Error ? e.message.split('\n')[0]! : String(e));

/**
 * Compiles an expression (a rule or a messageExpression), cached by text.
 * @returns the program, or `{ ok: false, reason }` for an expression hcc cannot run
 */
export function compileExpression(expression: string): CompiledExpression {
  const hit = compiled.get(expression);
  if (hit) return hit;
  environment ??= makeEnvironment();
  let out: CompiledExpression;
  try {
    const program = environment.parse(expression);
    useKubernetesFunctions(program.ast);
    const check = program.check();
    if (!check.valid) {
      out = { ok: false, reason: errorSummary(check.error) };
    } else {
      const acc = { oldSelf: false };
      const macroDepth = inspect(program.ast, acc);
      out = { ok: true, program, usesOldSelf: acc.oldSelf, macroDepth };
    }
  } catch (e) {
    out = { ok: false, reason: errorSummary(e) };
  }
  if (compiled.size > 10_000) compiled.clear();
  compiled.set(expression, out);
  return out;
}

/**
 * The syntax error of a CEL expression, or undefined when it parses. Only syntax: an expression
 * that parses but that hcc's CEL cannot type-check (a function it lacks) is a rule hcc skips
 * ({@link unsupportedRules}), not a CRD to refuse, since kube-apiserver may well accept it.
 */
export function celSyntaxError(expression: string): string | undefined {
  const hit = compiled.get(expression);
  if (hit?.ok) return undefined;
  if (parsed.has(expression)) return parsed.get(expression);
  environment ??= makeEnvironment();
  let err: string | undefined;
  try {
    environment.parse(expression);
  } catch (e) {
    err = errorSummary(e);
  }
  if (parsed.size > 10_000) parsed.clear();
  parsed.set(expression, err);
  return err;
}

/** {@link celSyntaxError}'s answers by expression text. */
const parsed = new Map<string, string | undefined>();
