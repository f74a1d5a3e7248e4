import { describe, expect, it } from 'vitest';
import { StatusError } from '../../apierrors/status.js';
import { patchMetaFor, strategicMergePatch } from './strategic-merge.js';

const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cluster-config',
    namespace: 'clusters',
    uid: 'c0ffee',
    resourceVersion: '12',
    labels: { app: 'hcc' },
    annotations: {
      [lastApplied]: '{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"annotations":{},"labels":{"app":"hcc"},"name":"cluster-config","namespace":"clusters"}}\n',
      team: 'platform',
    },
  },
  data: { a: '1', b: '2' },
};

const namespace = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    name: 'clusters-example',
    labels: { 'kubernetes.io/metadata.name': 'clusters-example' },
    finalizers: ['example.com/a', 'example.com/b'],
    ownerReferences: [
      { apiVersion: 'v1', kind: 'Secret', name: 'one', uid: '1' },
      { apiVersion: 'v1', kind: 'Secret', name: 'two', uid: '2' },
      { apiVersion: 'v1', kind: 'Secret', name: 'three', uid: '3' },
    ],
    managedFields: [{ manager: 'kubectl', operation: 'Update' }],
  },
  spec: { finalizers: ['kubernetes'] },
  status: {
    phase: 'Active',
    conditions: [
      { type: 'NamespaceDeletionDiscoveryFailure', status: 'False' },
      { type: 'NamespaceDeletionContentFailure', status: 'False' },
    ],
  },
};

const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'pull-secret', namespace: 'clusters' },
  type: 'Opaque',
  data: { x: 'eA==', y: 'eQ==' },
};

type Obj = Record<string, unknown>;
const meta = (o: Obj): Obj => o.metadata as Obj;

describe('strategicMergePatch: what kubectl sends', () => {
  it.each<{ name: string; input: { original: Obj; patch: Obj }; want: (result: Obj) => unknown; expected: unknown }>([
    {
      name: 'kubectl apply of a ConfigMap: removed, changed and added keys; new last-applied',
      input: {
        original: configMap,
        patch: {
          data: { a: null, b: '3', c: '4' },
          metadata: { annotations: { [lastApplied]: '{"new":true}\n' }, labels: { tier: 'db' } },
        },
      },
      want: (r) => ({ data: r.data, labels: meta(r).labels, annotations: meta(r).annotations, uid: meta(r).uid }),
      expected: {
        data: { b: '3', c: '4' },
        labels: { app: 'hcc', tier: 'db' },
        annotations: { [lastApplied]: '{"new":true}\n', team: 'platform' },
        uid: 'c0ffee',
      },
    },
    {
      name: 'kubectl label',
      input: { original: configMap, patch: { metadata: { labels: { env: 'prod' } } } },
      want: (r) => meta(r).labels,
      expected: { app: 'hcc', env: 'prod' },
    },
    {
      name: 'kubectl label --overwrite with removal (key-)',
      input: { original: configMap, patch: { metadata: { labels: { app: null } } } },
      want: (r) => meta(r).labels,
      expected: {},
    },
    {
      name: 'kubectl apply of a Namespace: finalizers with $setElementOrder and $deleteFromPrimitiveList',
      input: {
        original: namespace,
        patch: {
          metadata: {
            '$deleteFromPrimitiveList/finalizers': ['example.com/a'],
            '$setElementOrder/finalizers': ['example.com/b', 'example.com/c'],
            finalizers: ['example.com/c'],
          },
        },
      },
      want: (r) => meta(r).finalizers,
      expected: ['example.com/b', 'example.com/c'],
    },
    {
      name: 'finalizer added without order information goes first (as upstream)',
      input: { original: namespace, patch: { metadata: { finalizers: ['example.com/c'] } } },
      want: (r) => meta(r).finalizers,
      expected: ['example.com/c', 'example.com/a', 'example.com/b'],
    },
    {
      name: 'finalizer already present is not duplicated',
      input: { original: namespace, patch: { metadata: { finalizers: ['example.com/a'] } } },
      want: (r) => meta(r).finalizers,
      expected: ['example.com/a', 'example.com/b'],
    },
    {
      name: '$setElementOrder alone reorders',
      input: { original: namespace, patch: { metadata: { '$setElementOrder/finalizers': ['example.com/b', 'example.com/a'] } } },
      want: (r) => meta(r).finalizers,
      expected: ['example.com/b', 'example.com/a'],
    },
    {
      name: 'removing the only finalizer through the deletion list',
      input: { original: namespace, patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a', 'example.com/b'] } } },
      want: (r) => meta(r).finalizers,
      expected: [],
    },
    {
      name: 'ownerReferences merge by uid, with $patch: delete and $setElementOrder',
      input: {
        original: namespace,
        patch: {
          metadata: {
            '$setElementOrder/ownerReferences': [{ uid: '3' }, { uid: '1' }, { uid: '4' }],
            ownerReferences: [
              { $patch: 'delete', uid: '2' },
              { uid: '1', controller: true },
              { apiVersion: 'v1', kind: 'Secret', name: 'four', uid: '4' },
            ],
          },
        },
      },
      want: (r) => meta(r).ownerReferences,
      expected: [
        { apiVersion: 'v1', kind: 'Secret', name: 'three', uid: '3' },
        { apiVersion: 'v1', kind: 'Secret', name: 'one', uid: '1', controller: true },
        { apiVersion: 'v1', kind: 'Secret', name: 'four', uid: '4' },
      ],
    },
    {
      name: 'ownerReferences: $patch: replace keeps only the listed items',
      input: { original: namespace, patch: { metadata: { ownerReferences: [{ $patch: 'replace' }, { uid: '9', name: 'nine' }] } } },
      want: (r) => meta(r).ownerReferences,
      expected: [{ uid: '9', name: 'nine' }],
    },
    {
      name: 'Namespace status.conditions merge by type',
      input: { original: namespace, patch: { status: { conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'Stuck' }] } } },
      want: (r) => (r.status as Obj).conditions,
      expected: [
        { type: 'NamespaceDeletionDiscoveryFailure', status: 'False' },
        { type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'Stuck' },
      ],
    },
    {
      name: 'Namespace spec.finalizers is atomic (replaced)',
      input: { original: namespace, patch: { spec: { finalizers: [] } } },
      want: (r) => r.spec,
      expected: { finalizers: [] },
    },
    {
      name: 'managedFields are replaced',
      input: { original: namespace, patch: { metadata: { managedFields: [{ manager: 'hcc', operation: 'Apply' }] } } },
      want: (r) => meta(r).managedFields,
      expected: [{ manager: 'hcc', operation: 'Apply' }],
    },
    {
      name: '$patch: replace on a map',
      input: { original: configMap, patch: { metadata: { labels: { $patch: 'replace', c: '3' } } } },
      want: (r) => meta(r).labels,
      expected: { c: '3' },
    },
    {
      name: '$patch: delete on an existing map empties it',
      input: { original: configMap, patch: { metadata: { annotations: { $patch: 'delete' } } } },
      want: (r) => meta(r).annotations,
      expected: {},
    },
    {
      name: '$patch: delete on a missing map adds nothing',
      input: { original: secret, patch: { metadata: { labels: { $patch: 'delete' } } } },
      want: (r) => 'labels' in meta(r),
      expected: false,
    },
    {
      name: '$retainKeys drops the keys it does not list',
      input: { original: secret, patch: { data: { $retainKeys: ['x'], x: 'eg==' } } },
      want: (r) => r.data,
      expected: { x: 'eg==' },
    },
    {
      name: 'null for a missing key is ignored',
      input: { original: secret, patch: { stringData: null, immutable: true } },
      want: (r) => ({ has: 'stringData' in r, immutable: r.immutable }),
      expected: { has: false, immutable: true },
    },
    {
      name: 'nulls inside a new map are dropped',
      input: { original: secret, patch: { metadata: { labels: { a: null, b: '1' } } } },
      want: (r) => meta(r).labels,
      expected: { b: '1' },
    },
    {
      name: 'a different type replaces the value',
      input: { original: secret, patch: { data: 'oops' } },
      want: (r) => r.data,
      expected: 'oops',
    },
    {
      name: 'scalars replace',
      input: { original: secret, patch: { type: 'kubernetes.io/dockerconfigjson' } },
      want: (r) => r.type,
      expected: 'kubernetes.io/dockerconfigjson',
    },
    {
      name: 'Lease renewal',
      input: {
        original: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'mgmt-1' }, spec: { holderIdentity: 'syncer-a', renewTime: '2024-05-01T10:00:00.000000Z' } },
        patch: { spec: { renewTime: '2024-05-01T10:00:10.000000Z' } },
      },
      want: (r) => r.spec,
      expected: { holderIdentity: 'syncer-a', renewTime: '2024-05-01T10:00:10.000000Z' },
    },
    {
      name: 'Event count bump',
      input: {
        original: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, count: 1, involvedObject: { kind: 'HostedCluster', name: 'example' }, lastTimestamp: 't1' },
        patch: { count: 2, lastTimestamp: 't2' },
      },
      want: (r) => ({ count: r.count, lastTimestamp: r.lastTimestamp, involvedObject: r.involvedObject }),
      expected: { count: 2, lastTimestamp: 't2', involvedObject: { kind: 'HostedCluster', name: 'example' } },
    },
    {
      name: '$patch: delete at the root empties the object',
      input: { original: secret, patch: { $patch: 'delete' } },
      want: (r) => r,
      expected: {},
    },
  ])('$name', ({ input, want, expected }) => {
    const kind = input.original.kind as string;
    expect(want(strategicMergePatch(input.original, input.patch, patchMetaFor(kind)))).toEqual(expected);
  });
});

describe('strategicMergePatch errors', () => {
  it.each<{ name: string; input: { original: Obj; patch: unknown }; want: { code: number; reason: string; message: string } }>([
    { name: 'not an object', input: { original: secret, patch: [1] }, want: { code: 400, reason: 'BadRequest', message: 'invalid JSON document' } },
    {
      name: '$patch: merge in a map',
      input: { original: configMap, patch: { metadata: { labels: { $patch: 'merge', a: 'b' } } } },
      want: { code: 400, reason: 'BadRequest', message: 'unknown patch type: merge in map: map[$patch:merge a:b]' },
    },
    {
      name: '$patch: merge in a list',
      input: { original: namespace, patch: { metadata: { ownerReferences: [{ $patch: 'merge', uid: '1' }] } } },
      want: { code: 400, reason: 'BadRequest', message: 'merging lists cannot yet be specified in the patch' },
    },
    {
      name: 'unknown list directive',
      input: { original: namespace, patch: { metadata: { ownerReferences: [{ $patch: 'foo', uid: '1' }] } } },
      want: { code: 400, reason: 'BadRequest', message: 'unknown patch type: foo in map: map[$patch:foo uid:1]' },
    },
    {
      name: 'missing merge key',
      input: { original: namespace, patch: { metadata: { ownerReferences: [{ name: 'x' }] } } },
      want: { code: 400, reason: 'BadRequest', message: 'map: map[name:x] does not contain declared merge key: uid' },
    },
    {
      name: 'deletion list without a slash',
      input: { original: namespace, patch: { metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } } },
      want: { code: 400, reason: 'BadRequest', message: 'invalid patch format of primitive list' },
    },
    {
      name: 'set element order without a slash',
      input: { original: namespace, patch: { metadata: { $setElementOrderfinalizers: ['a'] } } },
      want: { code: 400, reason: 'BadRequest', message: 'invalid patch format of setElementOrder list' },
    },
    {
      name: 'patch list out of $setElementOrder',
      input: { original: namespace, patch: { metadata: { '$setElementOrder/finalizers': ['a'], finalizers: ['b'] } } },
      want: { code: 400, reason: 'BadRequest', message: "the order in patch list:\n[b]\n doesn't match $setElementOrder list:\n[a]" },
    },
    {
      name: '$retainKeys missing a patched key',
      input: { original: secret, patch: { data: { $retainKeys: ['x'], y: 'eg==' } } },
      want: { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    },
    {
      name: '$retainKeys not a list',
      input: { original: secret, patch: { data: { $retainKeys: 'x' } } },
      want: { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    },
    {
      name: 'lists of lists',
      input: { original: { kind: 'Namespace', metadata: { finalizers: [] } }, patch: { metadata: { finalizers: [['x']] } } },
      want: { code: 422, reason: 'Invalid', message: 'lists of lists are not supported' },
    },
    {
      name: 'mixed element types',
      input: { original: namespace, patch: { metadata: { finalizers: [1] } } },
      want: { code: 400, reason: 'BadRequest', message: 'list element types are not identical: [[example.com/a example.com/b] [1]]' },
    },
  ])('$name', ({ input, want }) => {
    let err: unknown;
    try {
      strategicMergePatch(input.original, input.patch, patchMetaFor((input.original.kind as string) ?? ''));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject(want);
  });
});

describe('strategicMergePatch purity and metadata', () => {
  const deepFreeze = <T>(o: T): T => {
    if (typeof o === 'object' && o !== null) {
      Object.values(o).forEach(deepFreeze);
      Object.freeze(o);
    }
    return o;
  };

  it.each([
    {
      name: 'ownerReferences patch',
      input: { original: namespace, patch: { metadata: { '$setElementOrder/ownerReferences': [{ uid: '1' }], ownerReferences: [{ $patch: 'delete', uid: '2' }, { uid: '1', controller: true }] } } },
    },
    { name: 'finalizers patch', input: { original: namespace, patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'], finalizers: ['x'] } } } },
    { name: 'directives in new maps', input: { original: secret, patch: { metadata: { labels: { a: null, b: { $patch: 'delete' } } } } } },
  ])('does not mutate its inputs: $name', ({ input }) => {
    const original = structuredClone(input.original);
    const patch = structuredClone(input.patch);
    deepFreeze(original);
    deepFreeze(patch);
    const result = strategicMergePatch(original, patch, patchMetaFor(original.kind));
    expect(original).toEqual(input.original);
    expect(patch).toEqual(input.patch);
    expect(result).not.toBe(original);
  });

  it.each([
    { name: 'Namespace knows its status conditions', input: 'Namespace', want: { strategy: 'merge', mergeKey: 'type' } },
    { name: 'Secret has ObjectMeta rules', input: 'Secret', want: undefined },
    { name: 'unknown kinds get ObjectMeta rules', input: 'CustomResourceDefinition', want: undefined },
  ])('patchMetaFor: $name', ({ input, want }) => {
    const m = patchMetaFor(input);
    expect(m.fields?.metadata?.fields?.ownerReferences).toEqual({ strategy: 'merge', mergeKey: 'uid' });
    expect(m.fields?.metadata?.fields?.finalizers).toEqual({ strategy: 'merge' });
    expect(m.fields?.status?.fields?.conditions).toEqual(want);
  });
});
