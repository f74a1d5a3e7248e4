/**
 * The text of an etcd client error for logs, `/readyz` and Status messages: the error's message
 * without the empty `Resolution note: ` that @grpc/grpc-js appends to an UNAVAILABLE error when its
 * name resolver has nothing to add (`14 UNAVAILABLE: No connection established. Last error: …
 * Resolution note: `).
 * @param err - anything thrown (an Error, or a value)
 * @returns the message, e.g. `14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379`
 */
export function etcdErrorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/[.;]?\s*Resolution note:\s*(?=\)|;|$)/g, (m) => (m.startsWith('.') ? '.' : ''));
}
