/**
 * The HyperShift operator's `supported-versions` ConfigMap: in the operator's namespace
 * (`hypershift`), labelled `hypershift.openshift.io/supported-versions: "true"`, with
 * `supported-versions: '{"versions":["4.18","4.17",...]}'` (newest first) and `server-version`
 * (the operator's build; here the sim's name). Syncers and the CLI read it to learn which OCP
 * minors a management cluster can host.
 * @see https://hypershift.pages.dev/reference/versioning-support/
 */
import { isAlreadyExists, isNotFound, type KubeObject, type RestClient } from '@hcc/client';
import { FieldManager, LabelSupportedVersions, OperatorNamespace, SupportedVersionsConfigMapName } from './names.js';
import { semanticEqual } from './equality.js';
import { configMapsRef, namespacesRef } from './resources.js';

/** `server-version` the sim advertises (upstream: the operator's git commit). */
export const SimServerVersion = 'hcc-hypershift-sim';

/** The ConfigMap as the operator writes it. */
export function supportedVersionsConfigMap(versions: readonly string[]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: SupportedVersionsConfigMapName,
      namespace: OperatorNamespace,
      labels: { [LabelSupportedVersions]: 'true' },
    },
    data: {
      'server-version': SimServerVersion,
      'supported-versions': JSON.stringify({ versions: [...versions] }),
    },
  };
}

/**
 * Creates the `hypershift` namespace and the ConfigMap, or brings an existing ConfigMap's label and
 * data up to date (other labels, annotations and data keys it holds stay).
 * @throws ApiError or RequestError when the API server refuses or cannot be reached
 */
export async function ensureSupportedVersions(client: RestClient, versions: readonly string[], fieldManager = FieldManager): Promise<void> {
  const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OperatorNamespace } };
  await client.create(namespacesRef, undefined, ns, { fieldManager }).catch((e) => {
    if (!isAlreadyExists(e)) throw e;
  });
  const want = supportedVersionsConfigMap(versions);
  let existing: KubeObject | undefined;
  try {
    existing = await client.get(configMapsRef, OperatorNamespace, SupportedVersionsConfigMapName);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  if (!existing) {
    await client.create(configMapsRef, OperatorNamespace, want, { fieldManager });
    return;
  }
  const merged: KubeObject = {
    ...existing,
    metadata: { ...existing.metadata, labels: { ...(existing.metadata.labels as object), ...(want.metadata.labels as object) } },
    data: { ...(existing.data as object), ...(want.data as object) },
  };
  if (semanticEqual(existing, merged)) return;
  await client.update(configMapsRef, OperatorNamespace, merged, { fieldManager });
}
