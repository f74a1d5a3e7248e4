/**
 * The tolerations annotation of a HostedCluster (`controlcenter.hcc.dev/tolerations`): a JSON list
 * of Kubernetes tolerations, parsed and checked as the API server checks a pod's tolerations. The
 * scheduler's TaintToleration plugin reads it; the control center refuses a bad one at admission.
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/
 */

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
 * Parses and validates the tolerations annotation like the API server validates pod tolerations.
 * @returns the list, or an Error naming the first problem (e.g. `[0].operator: must be Exists when key is empty`)
 */
export function parseTolerations(text: string): Toleration[] | Error {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return new Error(`not JSON: ${(e as Error).message}`);
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
  }
  return v as Toleration[];
}

