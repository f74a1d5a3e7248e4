/**
 * What a CustomResourceDefinition must be to be accepted, beyond its names: its spec decodes into
 * apiextensions/v1 (types, no unknown fields under Strict) and every CEL rule in its schemas is CEL
 * (a syntax error is refused, as upstream refuses it, instead of a rule silently never enforced).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crd = (plural: string, extra: { versionExtra?: Record<string, unknown>; specExtra?: Record<string, unknown>; schema?: Record<string, unknown> } = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.ex.hcc.dev` },
  spec: {
    group: 'ex.hcc.dev',
    scope: 'Namespaced',
    names: { plural, kind: plural[0]!.toUpperCase() + plural.slice(1, -1) },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: extra.schema ?? { type: 'object' } }, ...extra.versionExtra }],
    ...extra.specExtra,
  },
});

describe('CRD validation', () => {
  let cc: RunningControlCenter;
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { code: res.status, body: (await res.json()) as { message?: string; reason?: string } };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter();
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('refuses a CEL rule that does not parse, naming it, and writes nothing', async () => {
    const schema = { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.x +' }], properties: { x: { type: 'integer' } } } } };
    const r = await call('POST', CRDS, crd('bazs', { schema }));
    expect(r.code).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.message).toContain('spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "self.x +": compilation failed:');
    expect((await call('GET', `${CRDS}/bazs.ex.hcc.dev`)).code).toBe(404);
  });

  it('refuses a messageExpression that does not parse', async () => {
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'true', messageExpression: '"a" +' }] };
    const r = await call('POST', CRDS, crd('quzs', { schema }));
    expect(r.code).toBe(422);
    expect(r.body.message).toContain('x-kubernetes-validations[0].messageExpression');
  });

  it('refuses a wrongly typed field of the spec with 400', async () => {
    const r = await call('POST', CRDS, crd('foos', { versionExtra: { served: 'yes' } }));
    expect(r.code).toBe(400);
    expect(r.body.message).toContain('json: cannot unmarshal string into Go struct field CustomResourceDefinition.spec.versions.served of type bool');
  });

  it('refuses an unknown spec field under Strict, drops it with a warning by default', async () => {
    const strict = await call('POST', `${CRDS}?fieldValidation=Strict`, crd('quxs', { specExtra: { bogus: 1 } }));
    expect(strict.code).toBe(400);
    expect(strict.body.message).toContain('strict decoding error: unknown field "spec.bogus"');
    const res = await fetch(`${cc.url}${CRDS}`, { method: 'POST', headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(crd('quxs', { specExtra: { bogus: 1 } })) });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toContain('unknown field \\"spec.bogus\\"');
    expect(((await res.json()) as { spec: Record<string, unknown> }).spec).not.toHaveProperty('bogus');
  });

  it.each([
    { keyword: { maxItems: '5' }, want: 'json: cannot unmarshal string into Go struct field' },
    { keyword: { type: 5 }, want: 'json: cannot unmarshal number into Go struct field' },
    { keyword: { description: 5 }, want: 'of type string' },
    { keyword: { required: 'size' }, want: 'of type []string' },
    { keyword: { enum: 'red' }, want: 'of type []v1.JSON' },
    { keyword: { items: 'x' }, want: 'of type v1.JSONSchemaProps' },
    { keyword: { 'x-kubernetes-list-map-keys': 'k' }, want: 'of type []string' },
    { keyword: { 'x-kubernetes-validations': [{ rule: 'true', optionalOldSelf: 'yes' }] }, want: 'of type bool' },
  ])('refuses a schema keyword of the wrong type ($keyword) deep in openAPIV3Schema with 400', async ({ keyword, want }) => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' }, ...keyword } } } } };
    const r = await call('POST', CRDS, crd('typos', { schema }));
    expect(r.code, r.body.message).toBe(400);
    expect(r.body.message).toContain('CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition:');
    expect(r.body.message).toContain(want);
  });

  it('an unknown keyword in openAPIV3Schema (maxLenght) is refused under Strict and dropped with a warning otherwise', async () => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string', maxLenght: 3 } } } } };
    const strict = await call('POST', `${CRDS}?fieldValidation=Strict`, crd('colors', { schema }));
    expect(strict.code).toBe(400);
    expect(strict.body.message).toContain('strict decoding error: unknown field "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].maxLenght"');
    const res = await fetch(`${cc.url}${CRDS}`, { method: 'POST', headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(crd('colors', { schema })) });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toContain('maxLenght');
    const stored = (await res.json()) as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: { color: Record<string, unknown> } } } } } }[] } };
    expect(stored.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.color).toEqual({ type: 'string' });
  });

  it('keeps /openapi/v2 serving after a CRD with a wrongly typed keyword was refused', async () => {
    await call('POST', CRDS, crd('brokens', { schema: { type: 'object', required: 'size' } }));
    const res = await fetch(`${cc.url}/openapi/v2`, { headers: { authorization: `Bearer ${cc.adminToken}`, accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(res.status).toBe(200);
  });

  it("accepts HyperShift's own CRDs (every rule parses) with nothing dropped", async () => {
    for (const c of allCRDs) {
      const res = await fetch(`${cc.url}${CRDS}?fieldValidation=Strict`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(c),
      });
      expect(res.status, `${c.metadata.name}: ${await res.clone().text()}`).toBe(201);
      expect(res.headers.get('warning')).toBeNull();
      const stored = (await res.json()) as { spec: unknown };
      expect(stored.spec).toEqual(c.spec);
    }
  });
});
