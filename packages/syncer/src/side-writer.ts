/**
 * The syncer's writes to one side (the control center, or its management cluster) for the kinds
 * it syncs, over a RestClient: the {@link SideWriter} the downsync and upsync steps use.
 */
import { ConfigMapResource, HostedClusterResource, NodePoolResource, SecretResource, type KubeObject, type ResourceAddress } from '@hcc/crds';
import { isAlreadyExists, isNotFound, type RestClient } from '@hcc/client';
import type { SideWriter, SyncKind } from './controllers/downsync/types.js';

/** The resource of each synced kind. */
export const refs: Record<SyncKind, ResourceAddress> = {
  HostedCluster: HostedClusterResource,
  NodePool: NodePoolResource,
  Secret: SecretResource,
  ConfigMap: ConfigMapResource,
};

/** The apiVersion each synced kind is written with. */
export const apiVersions: Record<SyncKind, string> = {
  HostedCluster: 'hypershift.openshift.io/v1beta1',
  NodePool: 'hypershift.openshift.io/v1beta1',
  Secret: 'v1',
  ConfigMap: 'v1',
};

/** Write options that report unknown fields to `onWarning` (none without one: the server's default). */
const warned = (onWarning: ((text: string) => void) | undefined) => (onWarning ? { fieldValidation: 'Warn' as const, onWarning } : {});

/**
 * A SideWriter over `c`: `get` answers undefined for a 404, `delete` resolves when the object is
 * already gone (404); every other error, and every error of create/update/patch, is thrown as the
 * client's ApiError or RequestError. Create and update set `apiVersion` and `kind`; patch is a
 * JSON merge patch.
 */
export function sideWriter(c: RestClient): SideWriter {
  return {
    get: async (kind, ns, name) => {
      try {
        return await c.get<KubeObject>(refs[kind], ns, name);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    create: (kind, obj, onWarning) => c.create(refs[kind], obj.metadata.namespace, { ...obj, apiVersion: apiVersions[kind], kind }, warned(onWarning)),
    dryRunCreate: async (kind, obj) => {
      try {
        await c.create(refs[kind], obj.metadata.namespace, { ...obj, apiVersion: apiVersions[kind], kind }, { dryRun: true });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    },
    update: (kind, obj) => c.update(refs[kind], obj.metadata.namespace, { ...obj, apiVersion: apiVersions[kind], kind }),
    patch: (kind, ns, name, patch, onWarning) => c.patch(refs[kind], ns, name, patch, 'merge', warned(onWarning)),
    delete: async (kind, ns, name, preconditions) => {
      try {
        await c.delete(refs[kind], ns, name, preconditions ? { preconditions } : {});
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}
