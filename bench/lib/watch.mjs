/**
 * Watching from the bench with @hcc/client's RestClient (what the scheduler and syncers use):
 * a watch started at the current resourceVersion, every event handed to onEvent with its
 * arrival time (epoch ms, nowMs()), stopped when the scope closes.
 */
import { loadKubeconfig, RestClient } from '@hcc/client';
import { nowMs } from './progress.mjs';

/** A RestClient for a kubeconfig, closed when the scope closes. */
export function clientFor(scope, kubeconfig) {
  const c = new RestClient(loadKubeconfig(kubeconfig), { userAgent: 'hcc-bench', timeoutMs: 120_000 });
  scope.defer(() => c.close());
  return c;
}

/**
 * Starts a watch of `ref` (optionally in one namespace) from now on.
 * @returns { error() } — the error that ended the watch early, if any
 */
export async function watchFromNow(scope, client, ref, { namespace } = {}, onEvent) {
  const ac = new AbortController();
  const list = await client.list(ref, { namespace, limit: 1 });
  let error;
  const done = client
    .watch(ref, { namespace, resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 3600 }, (ev) => onEvent(ev, nowMs()), ac.signal)
    .then(
      () => {
        if (!ac.signal.aborted) error = new Error(`watch of ${ref.resource} ended early`);
      },
      (err) => {
        error = err;
      },
    );
  scope.defer(async () => {
    ac.abort();
    await done;
  });
  return { error: () => error };
}
