/**
 * DefaultBinder: binds a HostedCluster through the control center's `binding` subresource, which
 * sets the placement label `controlcenter.hcc.dev/management-cluster: <cluster>` and the
 * `Scheduled` condition in one write guarded by the resourceVersion the decision was made from. A
 * stale view therefore fails with 409 Conflict (the runtime forgets the reservation and retries
 * from the cache) and a HostedCluster is never bound twice, even by two schedulers during a leader
 * failover.
 * @see https://github.com/kubernetes/kubernetes/tree/master/pkg/scheduler/framework/plugins/defaultbinder
 */
import type { BindPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.DefaultBinder;

/** The DefaultBinder bind plugin. */
export const defaultBinder = {
  name: Name,
  bind: (hc, cluster, handle) => handle.bind(hc, cluster),
} satisfies BindPlugin;
