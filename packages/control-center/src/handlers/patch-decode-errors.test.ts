/**
 * A patch whose result its kind cannot hold is answered as kube-apiserver's patchers answer it:
 * 422 Invalid on the field `patch` (`NewInvalid(schema.GroupKind{}, "", field.Invalid("patch",
 * value, err))`): a value of the wrong type, or an unknown field under fieldValidation=Strict
 * (kubectl edit's default), where the same object in a PUT is a 400. kubectl edit reopens the
 * editor on a 422 and gives up on a 400. Nothing is written.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
 */
import { describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import { request, useTestControlCenter } from '../testing/in-process.js';
import { hostedClusterBody } from '../testing/fixtures.js';

const CM = '/api/v1/namespaces/default/configmaps';
const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/default/hostedclusters';
const JSONPatch = 'application/json-patch+json';
const MergePatch = 'application/merge-patch+json';
const StrategicPatch = 'application/strategic-merge-patch+json';

describe('patch decode errors', () => {
  const cc = useTestControlCenter({ crds: allCRDs });

  it('a patched built-in of the wrong type is 422 on the field patch, its value the patched object (JSON, merge) or the patch (strategic)', async () => {
    const created = await request(cc(), 'POST', CM, { metadata: { name: 'typed' }, data: { a: '1' } });
    expect(created.code).toBe(201);
    const detail = 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string';
    for (const [contentType, patch] of [
      [JSONPatch, [{ op: 'replace', path: '/data', value: 5 }]],
      [MergePatch, { data: 5 }],
    ] as const) {
      const r = await request(cc(), 'PATCH', `${CM}/typed`, patch, { contentType });
      expect(r.code, contentType).toBe(422);
      expect(r.body.reason).toBe('Invalid');
      expect(r.body.message).toMatch(new RegExp(`^ "" is invalid: patch: Invalid value: "\\{.*\\\\"data\\\\":5.*\\}": ${detail.replace(/[[\]]/g, '\\$&')}$`));
      expect(r.body.details).toEqual({ causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: expect.stringMatching(/^Invalid value: "\{/) }] });
      // The value is the patched object's JSON.
      const value = JSON.parse(JSON.parse(/^Invalid value: (".*"): json:/.exec(r.body.details.causes[0].message)![1]!)) as { data: unknown; metadata: { name: string } };
      expect([value.data, value.metadata.name]).toEqual([5, 'typed']);
    }
    const smp = await request(cc(), 'PATCH', `${CM}/typed`, { data: 5 }, { contentType: StrategicPatch });
    expect([smp.code, smp.body.message]).toEqual([422, ` "" is invalid: patch: Invalid value: "map[data:5]": ${detail}`]);
    // The same object in a PUT is the decoder's 400, as kube-apiserver's update handler answers it.
    const put = await request(cc(), 'PUT', `${CM}/typed`, { metadata: { name: 'typed' }, data: 5 });
    expect([put.code, put.body.message]).toEqual([400, `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${detail}`]);
    const after = await request(cc(), 'GET', `${CM}/typed`);
    expect([after.body.data, after.body.metadata.resourceVersion]).toEqual([{ a: '1' }, created.body.metadata.resourceVersion]);
  });

  it('an unknown field under Strict is 422 (a warning under Warn, dropped under Ignore), on built-ins and custom resources', async () => {
    expect((await request(cc(), 'POST', CM, { metadata: { name: 'strict' }, data: { a: '1' } })).code).toBe(201);
    for (const [contentType, patch] of [
      [JSONPatch, [{ op: 'add', path: '/bogus', value: 'x' }]],
      [MergePatch, { bogus: 'x' }],
      [StrategicPatch, { bogus: 'x' }],
    ] as const) {
      const strict = await request(cc(), 'PATCH', `${CM}/strict?fieldValidation=Strict`, patch, { contentType });
      expect(strict.code, contentType).toBe(422);
      expect(strict.body.message, contentType).toMatch(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "bogus"$/);
      const warn = await request(cc(), 'PATCH', `${CM}/strict?fieldValidation=Warn`, patch, { contentType });
      expect([warn.code, warn.headers.get('warning')], contentType).toEqual([200, '299 - "unknown field \\"bogus\\""']);
      expect(warn.body.bogus).toBeUndefined();
      const ignore = await request(cc(), 'PATCH', `${CM}/strict?fieldValidation=Ignore`, patch, { contentType });
      expect([ignore.code, ignore.headers.get('warning'), ignore.body.bogus], contentType).toEqual([200, null, undefined]);
    }
    const hc = await request(cc(), 'POST', HCS, hostedClusterBody('strict', 'default'));
    expect(hc.code).toBe(201);
    const r = await request(cc(), 'PATCH', `${HCS}/strict?fieldValidation=Strict`, { spec: { bogus: 1 } }, { contentType: MergePatch });
    expect(r.code).toBe(422);
    expect(r.body.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: unknown field "spec.bogus"$/);
    const after = await request(cc(), 'GET', `${HCS}/strict`);
    expect([after.body.spec.bogus, after.body.metadata.resourceVersion]).toEqual([undefined, hc.body.metadata.resourceVersion]);
  });

  it("a /scale patch: 422 with the patched Scale as the value; a strategic merge patch of a custom resource's /scale is 415", async () => {
    const NPS = '/apis/hypershift.openshift.io/v1beta1/namespaces/default/nodepools';
    const np = await request(cc(), 'POST', NPS, {
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'scaled' },
      spec: { clusterName: 'x', replicas: 2, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' } },
    });
    expect(np.code).toBe(201);
    for (const [contentType, patch, query, detail] of [
      [MergePatch, { spec: { replicas: 'x' } }, '', 'json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32'],
      [JSONPatch, [{ op: 'replace', path: '/spec/replicas', value: 'x' }], '', 'json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32'],
      [MergePatch, { spec: { bogus: 1 } }, '?fieldValidation=Strict', 'strict decoding error: unknown field "spec.bogus"'],
    ] as const) {
      const r = await request(cc(), 'PATCH', `${NPS}/scaled/scale${query}`, patch, { contentType });
      expect(r.code, `${contentType} ${query}`).toBe(422);
      const m = /^ "" is invalid: patch: Invalid value: (".*"): (.*)$/.exec(r.body.message as string);
      expect(m?.[2], contentType).toBe(detail);
      expect((JSON.parse(JSON.parse(m![1]!)) as { kind: string }).kind).toBe('Scale');
    }
    const smp = await request(cc(), 'PATCH', `${NPS}/scaled/scale`, { spec: { replicas: 0 } }, { contentType: StrategicPatch });
    expect([smp.code, smp.body.reason]).toEqual([415, 'UnsupportedMediaType']);
    expect((await request(cc(), 'GET', `${NPS}/scaled`)).body.spec.replicas).toBe(2);
  });
});
