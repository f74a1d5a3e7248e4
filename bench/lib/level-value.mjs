/**
 * What the control center's LevelStore persists for a HostedCluster created by POST (see
 * packages/control-center/src/storage/level/level-store.ts flush()): under
 * `o/hypershift.openshift.io/hostedclusters/<ns>/<name>` the text `{"c":rev,"m":rev,"o":object}`,
 * the object with its server-set metadata (uid, creationTimestamp, generation, the managedFields
 * entry of the create, resourceVersion) and the CRD's defaults. The storage baseline
 * (raw-level.mjs) writes these values; test/bench-level-value.test.ts checks them against what a
 * real control center stores.
 */
import { hostedCluster } from './kube.mjs';

const created = '2026-01-01T00:00:00Z';

/**
 * The managedFields a create by a client without a field manager or user agent gets (manager
 * `unknown`, operation Update, as the bench's own creates): every field of the spec it sent,
 * and the CRD's defaults the server filled in.
 */
function createManagedFields(apiVersion) {
  const leaf = {};
  return [
    {
      manager: 'unknown',
      operation: 'Update',
      apiVersion,
      time: created,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:spec': {
          '.': {},
          'f:capabilities': leaf,
          'f:controllerAvailabilityPolicy': leaf,
          'f:dns': { '.': {}, 'f:baseDomain': leaf },
          'f:etcd': { '.': {}, 'f:managed': { '.': {}, 'f:storage': { '.': {}, 'f:persistentVolume': { '.': {}, 'f:size': leaf }, 'f:type': leaf } }, 'f:managementType': leaf },
          'f:infrastructureAvailabilityPolicy': leaf,
          'f:issuerURL': leaf,
          'f:networking': { '.': {}, 'f:clusterNetwork': leaf, 'f:networkType': leaf, 'f:serviceNetwork': leaf },
          'f:olmCatalogPlacement': leaf,
          'f:platform': { '.': {}, 'f:type': leaf },
          'f:pullSecret': leaf,
          'f:release': { '.': {}, 'f:image': leaf },
          'f:services': leaf,
        },
      },
    },
  ];
}

/** `hostedCluster(ns, name)` as the control center stores it after a POST (server-set metadata, defaults). */
export function storedHostedCluster(ns = 'bench', name = 'hc-000001') {
  const o = hostedCluster(ns, name);
  o.metadata = {
    ...o.metadata,
    uid: '99abe499-3023-4dbb-8bf9-3ad2f9fdba24',
    creationTimestamp: created,
    generation: 1,
    managedFields: createManagedFields(o.apiVersion),
    resourceVersion: '9',
  };
  Object.assign(o.spec, {
    controllerAvailabilityPolicy: 'HighlyAvailable',
    infrastructureAvailabilityPolicy: 'SingleReplica',
    etcd: { managementType: 'Managed', managed: { storage: { type: 'PersistentVolume', persistentVolume: { size: '8Gi' } } } },
    issuerURL: 'https://kubernetes.default.svc',
    olmCatalogPlacement: 'management',
    capabilities: {},
  });
  return o;
}

/** The name of the i-th object: `hc-000001` style, the same length for the first million. */
export const levelName = (i) => `hc-${String(i).padStart(6, '0')}`;

/** The LevelDB key of the i-th HostedCluster in namespace `ns`. */
export const levelKey = (i, ns = 'bench') => `o/hypershift.openshift.io/hostedclusters/${ns}/${levelName(i)}`;

/**
 * The value the LevelStore persists for `object` renamed to the i-th name at revision `rev`
 * (created and last modified at rev, as by a create).
 */
export function levelValue(object, i, rev) {
  return `{"c":${rev},"m":${rev},"o":${JSON.stringify({ ...object, metadata: { ...object.metadata, name: levelName(i), resourceVersion: String(rev) } })}}`;
}
