/**
 * The JSON text of stored objects, computed once when the object is written and reused for every
 * response, list and watch event that sends the object unchanged. Stored objects are immutable
 * by convention (handlers copy before they modify), so an object's text never goes stale; the
 * WeakMap lets unreferenced objects and their text be collected together.
 */
const texts = new WeakMap<object, string>();

/** Records the JSON text of obj (exactly `JSON.stringify(obj)`). */
export function rememberJSON(obj: object, json: string): void {
  texts.set(obj, json);
}

/** The JSON text of obj: the remembered one, else computed (and remembered). */
export function jsonOf(obj: object): string {
  let t = texts.get(obj);
  if (t === undefined) {
    t = JSON.stringify(obj);
    texts.set(obj, t);
  }
  return t;
}

/** The remembered JSON text of obj, if any (never computes). */
export function cachedJSON(obj: object): string | undefined {
  return texts.get(obj);
}
