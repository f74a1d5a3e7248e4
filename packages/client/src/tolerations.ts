/**
 * The tolerations annotation of a HostedCluster (`controlcenter.hcc.dev/tolerations`): a JSON list
 * of Kubernetes tolerations, parsed and checked as the API server checks a pod's tolerations. The
 * scheduler's TaintToleration plugin reads it; the control center refuses a bad one at admission.
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/
 */
import { isQualifiedName, isValidLabelValue } from './labels.js';

/** A Kubernetes toleration (corev1.Toleration; `tolerationSeconds` is accepted and ignored). */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: '' | 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

const effects = new Set(['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute']);

/**
 * Parses and validates the tolerations annotation as the API server validates a pod's
 * tolerations (ValidateTolerations): operator, effect, key a qualified name, value a label value,
 * `tolerationSeconds` an integer and only with effect NoExecute.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go (ValidateTolerations)
 * @returns the list, or an Error naming the first problem (e.g. `[0].operator: must be Exists when key is empty`)
 */
export function parseTolerations(text: string): Toleration[] | Error {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    // The parser's own wording is JavaScript's, not the API's: say what is expected instead.
    return new Error('not JSON: must be a JSON list of tolerations, e.g. [{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]');
  }
  if (!Array.isArray(v)) return new Error('must be a JSON list of tolerations');
  for (const [i, t] of v.entries()) {
    if (!t || typeof t !== 'object' || Array.isArray(t)) return new Error(`[${i}]: must be an object`);
    const o = t as Record<string, unknown>;
    for (const f of ['key', 'operator', 'value', 'effect'] as const) {
      if (o[f] !== undefined && typeof o[f] !== 'string') return new Error(`[${i}].${f}: must be a string`);
    }
    const op = (o.operator as string | undefined) ?? '';
    if (op !== '' && op !== 'Exists' && op !== 'Equal') return new Error(`[${i}].operator: must be Exists or Equal`);
    if (!o.key && op !== 'Exists') return new Error(`[${i}].operator: must be Exists when key is empty`);
    if (op === 'Exists' && o.value) return new Error(`[${i}].value: must be empty when operator is Exists`);
    if (!effects.has((o.effect as string | undefined) ?? '')) return new Error(`[${i}].effect: must be NoSchedule, PreferNoSchedule or NoExecute`);
    if (o.tolerationSeconds !== undefined) {
      if (!Number.isSafeInteger(o.tolerationSeconds)) return new Error(`[${i}].tolerationSeconds: must be an integer`);
      if (o.effect !== 'NoExecute') return new Error(`[${i}].effect: must be 'NoExecute' when tolerationSeconds is set`);
    }
    if (o.key && typeof o.key === 'string' && isQualifiedName(o.key).length > 0) return new Error(`[${i}].key: must be a qualified name (a label key: an optional DNS subdomain prefix and '/', then at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric one)`);
    if (op !== 'Exists' && isValidLabelValue((o.value as string | undefined) ?? '').length > 0) return new Error(`[${i}].value: must be a valid label value (at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric one)`);
  }
  return v as Toleration[];
}
