/**
 * HostedCluster `spec.etcd` and `spec.secretEncryption`.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go
 *   (EtcdSpec, ManagedEtcdSpec, UnmanagedEtcdSpec, SecretEncryptionSpec, KMSSpec)
 */
import type { JSONSchemaProps } from '../crd-types.js';
import { arr, cel, enumOf, immutable, localObjectReference, obj, opaque, quantity, str } from './builders.js';

/** hyperv1.EtcdSpec. Defaults to Managed etcd on an 8Gi PersistentVolume. */
export const etcdSchema: JSONSchemaProps = obj(
  {
    managementType: enumOf(['Managed', 'Unmanaged'], {
      description: 'managementType defines how the etcd cluster is managed. Immutable.',
      'x-kubernetes-validations': [immutable('managementType is immutable')],
    }),
    managed: obj(
      {
        storage: obj(
          {
            type: enumOf(['PersistentVolume'], { description: 'type is the kind of persistent storage implementation to use for etcd.' }),
            persistentVolume: obj({
              size: quantity({
                default: '8Gi',
                description: 'size is the minimum size of the data volume for each etcd member. Immutable.',
                'x-kubernetes-validations': [immutable('Etcd PV storage size is immutable')],
              }),
              storageClassName: str({
                maxLength: 255,
                'x-kubernetes-validations': [immutable('storageClassName is immutable')],
              }),
            }),
            restoreSnapshotURL: arr(str({ maxLength: 1024 }), {
              maxItems: 1,
              'x-kubernetes-list-type': 'set',
              'x-kubernetes-validations': [
                cel('self.size() <= 1', "RestoreSnapshotURL shouldn't contain more than 1 entry"),
                immutable('restoreSnapshotURL is immutable'),
                cel(
                  "self.size() == 0 || self[0].matches('^(https|s3)://.*')",
                  'restoreSnapshotURL must be a valid URL with scheme https or s3',
                ),
              ],
            }),
          },
          {
            description: 'storage specifies how etcd data is persisted.',
            required: ['type'],
            'x-kubernetes-validations': [
              cel('has(self.restoreSnapshotURL) == has(oldSelf.restoreSnapshotURL)', 'restoreSnapshotURL cannot be added or removed after creation'),
            ],
          },
        ),
        backup: opaque('backup configures etcd backups (HCPEtcdBackup feature gate).'),
      },
      { description: 'managed specifies the behavior of an etcd cluster managed by HyperShift.', required: ['storage'] },
    ),
    unmanaged: obj(
      {
        endpoint: str({ description: 'endpoint is the full etcd client endpoint URL.', pattern: '^https://', maxLength: 255 }),
        tls: obj(
          { clientSecret: localObjectReference('clientSecret refers to a Secret for client mTLS with the etcd cluster.') },
          { required: ['clientSecret'] },
        ),
      },
      { description: 'unmanaged configures an externally managed etcd cluster.', required: ['endpoint', 'tls'] },
    ),
  },
  {
    description: 'etcd specifies configuration for the control plane etcd cluster.',
    required: ['managementType'],
    default: { managementType: 'Managed', managed: { storage: { type: 'PersistentVolume', persistentVolume: { size: '8Gi' } } } },
    'x-kubernetes-validations': [
      cel("self.managementType == 'Managed' ? has(self.managed) : !has(self.managed)", 'Only managed configuration must be set when managementType is Managed'),
      cel(
        "self.managementType == 'Unmanaged' ? has(self.unmanaged) : !has(self.unmanaged)",
        'Only unmanaged configuration must be set when managementType is Unmanaged',
      ),
    ],
  },
);

const awsKMSKey = obj(
  { arn: str({ description: 'arn is the Amazon Resource Name for the encryption key.', pattern: '^arn:', maxLength: 2048 }) },
  { required: ['arn'] },
);

const azureKMSKey = obj(
  {
    keyVaultName: str({ minLength: 1, maxLength: 255 }),
    keyName: str({ minLength: 1, maxLength: 255 }),
    keyVersion: str({ minLength: 1, maxLength: 255 }),
  },
  { required: ['keyVaultName', 'keyName', 'keyVersion'] },
);

/** hyperv1.KMSSpec: a union keyed by `provider`. */
const kmsSchema: JSONSchemaProps = obj(
  {
    provider: enumOf(['IBMCloud', 'AWS', 'Azure'], { description: 'provider defines the KMS provider.' }),
    aws: obj(
      {
        activeKey: awsKMSKey,
        backupKey: awsKMSKey,
        auth: obj(
          {
            awsKms: str({
              maxLength: 2048,
              description:
                'awsKms is the ARN of the role used for AWS KMS; `arn-from-secret::<name>` reads the ARN from a Secret in the HostedCluster namespace.',
            }),
          },
          { required: ['awsKms'] },
        ),
        region: str(),
      },
      { required: ['activeKey', 'auth', 'region'] },
    ),
    azure: obj(
      {
        activeKey: azureKMSKey,
        backupKey: azureKMSKey,
        kms: opaque('kms is the managed identity used to authenticate with Azure KMS (Key Vault secret names, not Kubernetes Secrets).'),
        keyVaultAccess: enumOf(['Public', 'Private', '']),
      },
      {
        required: ['activeKey'],
        'x-kubernetes-validations': [
          cel(
            '!has(self.backupKey) || self.backupKey.keyVaultName == self.activeKey.keyVaultName',
            'backupKey.keyVaultName must match activeKey.keyVaultName; both keys must reside in the same Key Vault',
          ),
        ],
      },
    ),
    ibmcloud: obj(
      {
        auth: obj(
          {
            type: enumOf(['Managed', 'Unmanaged']),
            managed: opaque(),
            unmanaged: obj(
              { credentials: localObjectReference('credentials references a Secret holding the IBM Cloud API key.') },
              { required: ['credentials'] },
            ),
          },
          { required: ['type'] },
        ),
        keyList: arr(opaque('IBMCloudKMSKeyEntry: correlationID, crkID, instanceID, keyVersion, url.')),
        region: str(),
      },
      { required: ['auth', 'keyList', 'region'] },
    ),
  },
  { description: 'kms defines metadata about the kms secret encryption strategy.', required: ['provider'] },
);

/** hyperv1.SecretEncryptionSpec (`spec.secretEncryption`). */
export const secretEncryptionSchema: JSONSchemaProps = obj(
  {
    type: enumOf(['kms', 'aescbc'], { description: 'type defines the type of kube secret encryption being used.' }),
    kms: kmsSchema,
    aescbc: obj(
      {
        activeKey: localObjectReference('activeKey is the Secret holding the key used to encrypt new secrets.'),
        backupKey: localObjectReference('backupKey is the previous key kept during rotation.'),
      },
      { description: 'aescbc defines metadata about the AESCBC secret encryption strategy.', required: ['activeKey'] },
    ),
  },
  { description: 'secretEncryption specifies a Kubernetes secret encryption strategy for the control plane.', required: ['type'] },
);
