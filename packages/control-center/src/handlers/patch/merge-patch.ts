/**
 * JSON merge patch (RFC 7386): objects merge recursively, `null` deletes, everything else
 * (lists included) replaces.
 * @see https://www.rfc-editor.org/rfc/rfc7386
 */
import { deepCopyJSON, isJSONObject, ownValue, setOwn } from '@hcc/crds';


/** Returns `target` patched by `patch`; never mutates either. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJSONObject(patch)) return deepCopyJSON(patch);
  const out: Record<string, unknown> = isJSONObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(ownValue(out, k), v));
  }
  return out;
}
