/**
 * Which management cluster a user is the syncer of, after kube's nodeidentifier: a user named
 * `hcc:syncer:<name>` in the group `hcc:syncers` is the syncer of ManagementCluster `<name>`
 * (as `system:node:<name>` in `system:nodes` is the kubelet of Node `<name>`). Any other user,
 * a member of `hcc:syncers` under another name included, is not a syncer identity and is not
 * restricted to one cluster.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/auth/nodeidentifier/default.go
 */
import { SyncersGroup, SyncerUserPrefix } from '@hcc/crds';
import type { UserInfo } from './authenticate.js';

/**
 * The ManagementCluster name `user` syncs, or undefined when `user` is not a syncer identity.
 * @param user - the authenticated (or impersonated) user
 * @returns the name after `hcc:syncer:` (non-empty), when the user is also in `hcc:syncers`
 */
export function managementClusterOf(user: Pick<UserInfo, 'name' | 'groups'>): string | undefined {
  if (!user.name.startsWith(SyncerUserPrefix) || !user.groups.includes(SyncersGroup)) return undefined;
  const name = user.name.slice(SyncerUserPrefix.length);
  return name === '' ? undefined : name;
}

/** How a refusal names the syncer of `managementCluster`: `the syncer of management cluster "X"`. */
export const syncerOf = (managementCluster: string): string => `the syncer of management cluster ${JSON.stringify(managementCluster)}`;
