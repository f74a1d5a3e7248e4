/**
 * What a CustomResourceDefinition must be to be accepted, beyond its names: its spec decodes into
 * apiextensions/v1 (types, no unknown fields under Strict) and every CEL rule in its schemas is CEL
 * (a syntax error is refused, as upstream refuses it, instead of a rule silently never enforced).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';
import { Registry } from './registry.js';
import { customresourcedefinitions, defaultCRDSpec } from './builtin/customresourcedefinitions.js';
import { storagePrefix } from './types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startControlCenter } from '../control-center.js';
import type { Store } from '../storage/store.js';

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

  it('refuses a schema pattern RE2 does not accept (a backreference), and takes RE2-only syntax', async () => {
    const bad = { type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } } } };
    const r = await call('POST', CRDS, crd('patts', { schema: bad }));
    expect(r.code).toBe(422);
    expect(r.body.message).toContain(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn\'t: error parsing regexp: invalid escape sequence: `\\1`',
    );
    expect((await call('GET', `${CRDS}/patts.ex.hcc.dev`)).code).toBe(404);
    const good = { type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'string', pattern: '^[[:alpha:]]+$' } } } } };
    expect((await call('POST', CRDS, crd('patts', { schema: good }))).code).toBe(201);
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
      // Nothing dropped; apiextensions' defaults added (singular, listKind, conversion).
      const want = structuredClone(c.spec);
      defaultCRDSpec(want);
      expect(stored.spec).toEqual(want);
    }
  });

  describe('protected groups (*.k8s.io, *.kubernetes.io) need api-approved.kubernetes.io', () => {
    const inGroup = (plural: string, group: string, kind: string, annotations?: Record<string, string>) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}`, ...(annotations ? { annotations } : {}) },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, kind },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const approvalPath = 'metadata.annotations[api-approved.kubernetes.io]';

    it('refuses a CRD without the annotation (422 naming it) and writes nothing', async () => {
      const r = await call('POST', CRDS, inGroup('widgets', 'example.k8s.io', 'Widget'));
      expect(r.code).toBe(422);
      expect(r.body.message).toContain(`${approvalPath}: Required value: protected groups must have approval annotation "api-approved.kubernetes.io"`);
      expect((await call('GET', `${CRDS}/widgets.example.k8s.io`)).code).toBe(404);
      const sub = await call('POST', CRDS, inGroup('gadgets', 'x.kubernetes.io', 'Gadget'));
      expect(sub.code).toBe(422);
    });

    it('refuses a value that is neither a URL nor "unapproved..."', async () => {
      const r = await call('POST', CRDS, inGroup('widgets', 'example.k8s.io', 'Widget', { 'api-approved.kubernetes.io': 'yes' }));
      expect(r.code).toBe(422);
      expect(r.body.message).toContain(`${approvalPath}: Invalid value: "yes": protected groups must have approval annotation`);
    });

    it('accepts a URL or an "unapproved, ..." reason, and a group under x-k8s.io without one', async () => {
      expect((await call('POST', CRDS, inGroup('widgets', 'example.k8s.io', 'Widget', { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111' }))).code).toBe(201);
      expect((await call('POST', CRDS, inGroup('gizmos', 'example.k8s.io', 'Gizmo', { 'api-approved.kubernetes.io': 'unapproved, experimental' }))).code).toBe(201);
      expect((await call('POST', CRDS, inGroup('machines', 'cluster.x-k8s.io', 'Machine'))).code).toBe(201);
      expect((await call('GET', '/apis/example.k8s.io/v1/namespaces/default/widgets')).code).toBe(200);
    });

    it('an update that keeps the approval state passes; one that drops the annotation is refused', async () => {
      const got = (await call('GET', `${CRDS}/gizmos.example.k8s.io`)).body as unknown as { metadata: { annotations: Record<string, string> } };
      got.metadata.annotations = { ...got.metadata.annotations, 'api-approved.kubernetes.io': 'unapproved, still experimental' };
      expect((await call('PUT', `${CRDS}/gizmos.example.k8s.io`, got)).code).toBe(200);
      const again = (await call('GET', `${CRDS}/gizmos.example.k8s.io`)).body as unknown as { metadata: { annotations: Record<string, string> } };
      delete again.metadata.annotations['api-approved.kubernetes.io'];
      const r = await call('PUT', `${CRDS}/gizmos.example.k8s.io`, again);
      expect(r.code).toBe(422);
      expect(r.body.message).toContain(`${approvalPath}: Required value`);
    });

    it('a CRD named like a built-in (leases.coordination.k8s.io) does not take it over, and deleting it keeps the Leases', async () => {
      const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
      const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'keep-me' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } };
      expect((await call('POST', LEASES, lease)).code).toBe(201);
      const shadow = inGroup('leases', 'coordination.k8s.io', 'Lease', { 'api-approved.kubernetes.io': 'unapproved, testing' });
      expect((await call('POST', CRDS, shadow)).code).toBe(201);
      // Still the built-in: its schema refuses a wrongly typed field that the CRD's would keep.
      const bad = await call('POST', LEASES, { ...lease, metadata: { name: 'typed' }, spec: { leaseDurationSeconds: 'long' } });
      expect(bad.code).toBe(400);
      expect((await call('GET', `${LEASES}/keep-me`)).code).toBe(200);
      expect((await call('DELETE', `${CRDS}/leases.coordination.k8s.io`)).code).toBe(200);
      await expect.poll(async () => (await call('GET', `${CRDS}/leases.coordination.k8s.io`)).code, { timeout: 10_000 }).toBe(404);
      expect((await call('GET', `${LEASES}/keep-me`)).code).toBe(200);
      expect((await call('GET', LEASES)).code).toBe(200);
    });

    it('nor in another version: a CRD of a built-in group and plural at v2 or v9 serves nothing, and deleting it deletes none of the built-in objects', async () => {
      const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
      expect((await call('POST', LEASES, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'keep-me-too' }, spec: { holderIdentity: 'a' } })).code).toBe(201);
      const v2 = inGroup('leases', 'coordination.k8s.io', 'Lease', { 'api-approved.kubernetes.io': 'unapproved, testing' });
      v2.spec.versions[0]!.name = 'v2';
      expect((await call('POST', CRDS, v2)).code).toBe(201);
      expect((await call('GET', '/apis/coordination.k8s.io/v2/namespaces/default/leases')).code).toBe(404);
      const disco = (await call('GET', '/apis/coordination.k8s.io')).body as unknown as { preferredVersion: { version: string } };
      expect(disco.preferredVersion.version).toBe('v1');
      expect((await call('DELETE', `${CRDS}/leases.coordination.k8s.io`)).code).toBe(200);
      await expect.poll(async () => (await call('GET', `${CRDS}/leases.coordination.k8s.io`)).code, { timeout: 10_000 }).toBe(404);
      expect((await call('GET', `${LEASES}/keep-me-too`)).code).toBe(200);

      // The worst case: a CRD named like CRDs themselves, whose deletion would delete every CRD.
      expect((await call('POST', CRDS, crd('survivors'))).code).toBe(201);
      const v9 = inGroup('customresourcedefinitions', 'apiextensions.k8s.io', 'CustomResourceDefinition', { 'api-approved.kubernetes.io': 'unapproved, testing' });
      v9.spec.scope = 'Cluster';
      v9.spec.versions[0]!.name = 'v9';
      expect((await call('POST', CRDS, v9)).code).toBe(201);
      expect((await call('GET', '/apis/apiextensions.k8s.io/v9/customresourcedefinitions')).code).toBe(404);
      expect((await call('DELETE', `${CRDS}/customresourcedefinitions.apiextensions.k8s.io`)).code).toBe(200);
      await expect.poll(async () => (await call('GET', `${CRDS}/customresourcedefinitions.apiextensions.k8s.io`)).code, { timeout: 10_000 }).toBe(404);
      expect((await call('GET', `${CRDS}/survivors.ex.hcc.dev`)).code).toBe(200);
      expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/default/survivors')).code).toBe(200);
    });

    it('a CRD named like a self review (selfsubjectaccessreviews.authorization.k8s.io) does not take it over', async () => {
      const shadow = inGroup('selfsubjectaccessreviews', 'authorization.k8s.io', 'SelfSubjectAccessReview', { 'api-approved.kubernetes.io': 'unapproved, testing' });
      shadow.spec.scope = 'Cluster';
      expect((await call('POST', CRDS, shadow)).code).toBe(201);
      const r = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'secrets' } } });
      expect(r.code).toBe(201);
      expect((r.body as { status?: { allowed?: boolean } }).status?.allowed).toBe(true);
      const disco = (await call('GET', '/apis/authorization.k8s.io/v1')).body as unknown as { resources: { name: string }[] };
      expect(disco.resources.filter((x) => x.name === 'selfsubjectaccessreviews')).toHaveLength(1);
    });
  });
});

/** A control center for one describe block; `call` sends one admin request and answers its code and JSON body. */
function controlCenterFor(opts: Parameters<typeof startTestControlCenter>[0] = {}) {
  let cc: RunningControlCenter | undefined;
  beforeAll(async () => {
    cc = await startTestControlCenter(opts);
  });
  afterAll(async () => {
    await cc?.close();
  });
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(cc!.url + url, { method, headers: { authorization: `Bearer ${cc!.adminToken}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { code: res.status, body: (await res.json()) as Record<string, any> };
  };
  return { call, cc: () => cc! };
}

describe('CRD printer columns and selectable fields', () => {
  const { call } = controlCenterFor();
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'string' }, n: { type: 'integer' }, o: { type: 'object' } } } } };

  it("refuses a printer column whose JSONPath does not parse or whose type is not a column type (it would have been served by no control center after a restart)", async () => {
    const r = await call('POST', CRDS, crd('cols', { schema, versionExtra: { additionalPrinterColumns: [{ name: 'X', type: 'string', jsonPath: '.spec.x[' }, { name: 'Y', type: 'foo', jsonPath: '.spec.x' }, { name: 'Z', type: 'string', jsonPath: 'spec.x' }] } }));
    expect([r.code, r.body.reason]).toEqual([422, 'Invalid']);
    expect(r.body.message).toContain('spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: ".spec.x[": must be a valid JSONPath');
    expect(r.body.message).toContain('spec.versions[0].additionalPrinterColumns[1].type: Unsupported value: "foo": supported values: "boolean", "date", "integer", "number", "string"');
    expect(r.body.message).toContain('spec.versions[0].additionalPrinterColumns[2].JSONPath: Invalid value: "spec.x": must be a simple json path starting with .');
    expect((await call('GET', `${CRDS}/cols.ex.hcc.dev`)).code).toBe(404);
    expect((await call('POST', CRDS, crd('cols', { schema, versionExtra: { additionalPrinterColumns: [{ name: 'X', type: 'string', jsonPath: '.spec.x' }] } }))).code).toBe(201);
  });

  it('refuses a selectable field that does not parse, names no field, or names an object, and a duplicate', async () => {
    const r = await call('POST', CRDS, crd('sels', { schema, versionExtra: { selectableFields: [{ jsonPath: '.spec.x[' }, { jsonPath: '.spec.nope' }, { jsonPath: '.spec.o' }, { jsonPath: '.spec.n' }, { jsonPath: '.spec.n' }] } }));
    expect(r.code).toBe(422);
    expect(r.body.message).toContain('spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec.x[": must be a valid JSONPath');
    expect(r.body.message).toContain('spec.versions[0].selectableFields[1].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field');
    expect(r.body.message).toContain('spec.versions[0].selectableFields[2].jsonPath: Invalid value: ".spec.o": must point to a field of type string, boolean or integer');
    expect(r.body.message).toContain('spec.versions[0].selectableFields[4].jsonPath: Duplicate value: ".spec.n"');
    expect(r.body.message).not.toContain('selectableFields[3]');
    expect((await call('POST', CRDS, crd('sels', { schema, versionExtra: { selectableFields: [{ jsonPath: '.spec.x' }, { jsonPath: '.spec.n' }] } }))).code).toBe(201);
  });
});

describe('a stored CRD version that cannot be served', () => {
  it('is left out at start (recorded in unservable), not a crash, and the other CRDs are served', () => {
    const bad = crd('bads', { versionExtra: { additionalPrinterColumns: [{ name: 'X', type: 'string', jsonPath: '.spec.x[' }] } });
    const good = crd('goods');
    const store = { list: () => ({ items: [bad, good].map((object) => ({ object })), revision: 2 }), watch: () => ({ stop() {} }) };
    const registry = new Registry();
    expect(() => registry.start(store as unknown as Store)).not.toThrow();
    expect(registry.unservable.get('bads.ex.hcc.dev/v1')).toContain('unterminated');
    expect(registry.lookup('ex.hcc.dev', 'v1', 'bads')).toBeUndefined();
    expect(registry.lookup('ex.hcc.dev', 'v1', 'goods')?.kind).toBe('Good');
  });
});

describe('CRD names another CRD of the group holds', () => {
  const { call } = controlCenterFor({ namespaces: ['ns'] });
  const named = (plural: string, names: Record<string, unknown>) => {
    const c = crd(plural);
    return { ...c, spec: { ...c.spec, names: { plural, ...names } } };
  };
  const conditions = (body: Record<string, any>) => Object.fromEntries((body.status.conditions as { type: string; status: string; reason: string; message: string }[]).map((c) => [c.type, `${c.status} ${c.reason}: ${c.message}`]));

  it('are not accepted (NamesAccepted=False, as kube\'s naming controller), and the CRD is not served until they are free', async () => {
    expect((await call('POST', CRDS, named('widgets', { kind: 'Widget', shortNames: ['wd'] }))).code).toBe(201);
    const second = await call('POST', CRDS, named('widgetzs', { kind: 'Widget', shortNames: ['wd'] }));
    expect(second.code).toBe(201);
    // Kind and list kind both conflict; upstream reports the last one checked.
    expect(conditions(second.body)).toEqual({ NamesAccepted: 'False ListKindConflict: "WidgetList" is already in use', Established: 'False NotAccepted: not all names are accepted' });
    // Only the names nobody else holds are accepted.
    expect(second.body.status.acceptedNames).toEqual({ plural: 'widgetzs' });
    // Not served: its objects cannot land beside, or instead of, the first CRD's.
    expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/widgetzs')).code).toBe(404);
    const w = await call('POST', '/apis/ex.hcc.dev/v1/namespaces/ns/widgets', { apiVersion: 'ex.hcc.dev/v1', kind: 'Widget', metadata: { name: 'w' } });
    expect(w.code).toBe(201);
    const list = await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/widgets');
    expect(list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['w']);
    // Names of its own: accepted and served.
    const cur = await call('GET', `${CRDS}/widgetzs.ex.hcc.dev`);
    const fixed = await call('PUT', `${CRDS}/widgetzs.ex.hcc.dev`, { ...cur.body, spec: { ...cur.body.spec, names: { plural: 'widgetzs', kind: 'Widgetz', shortNames: ['wz'] } } });
    expect(fixed.code).toBe(200);
    expect(conditions(fixed.body)).toEqual({ NamesAccepted: 'True NoConflicts: no conflicts found', Established: 'True InitialNamesAccepted: the initial names have been accepted' });
    expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/widgetzs')).code).toBe(200);
    // A short name alone in use is a ShortNamesConflict.
    const third = await call('POST', CRDS, named('gadgets', { kind: 'Gadget', shortNames: ['wd', 'gd'] }));
    expect(conditions(third.body).NamesAccepted).toBe('False ShortNamesConflict: "wd" is already in use');
  });

  it('are accepted once the CRD holding them gives them up or is deleted, without an update of the waiting one', async () => {
    const accepted = async (name: string) => conditions((await call('GET', `${CRDS}/${name}`)).body);
    expect((await call('POST', CRDS, named('tools', { kind: 'Tool', shortNames: ['tl'] }))).code).toBe(201);
    expect((await call('POST', CRDS, named('toolzs', { kind: 'Toolz', shortNames: ['tl'] }))).code).toBe(201);
    expect((await accepted('toolzs.ex.hcc.dev')).NamesAccepted).toBe('False ShortNamesConflict: "tl" is already in use');
    // Never Established (one name is taken), so not served.
    expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/toolzs')).code).toBe(404);
    // The first CRD drops the short name: the waiting one gets it.
    const cur = await call('GET', `${CRDS}/tools.ex.hcc.dev`);
    expect((await call('PUT', `${CRDS}/tools.ex.hcc.dev`, { ...cur.body, spec: { ...cur.body.spec, names: { plural: 'tools', kind: 'Tool' } } })).code).toBe(200);
    await vi.waitFor(async () => expect((await accepted('toolzs.ex.hcc.dev')).NamesAccepted).toBe('True NoConflicts: no conflicts found'), { timeout: 10_000, interval: 100 });
    expect((await call('GET', `${CRDS}/toolzs.ex.hcc.dev`)).body.status.acceptedNames.shortNames).toEqual(['tl']);
    await vi.waitFor(async () => expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/toolzs')).code).toBe(200), { timeout: 10_000, interval: 100 });

    // A CRD whose kind is taken is not served; deleting the holder gives it its names and serves it.
    expect((await call('POST', CRDS, named('boxes', { kind: 'Box', singular: 'box' }))).code).toBe(201);
    expect((await call('POST', CRDS, named('boxens', { kind: 'Box', singular: 'boxen' }))).code).toBe(201);
    expect((await accepted('boxens.ex.hcc.dev')).Established).toBe('False NotAccepted: not all names are accepted');
    expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/boxens')).code).toBe(404);
    expect((await call('DELETE', `${CRDS}/boxes.ex.hcc.dev`)).code).toBe(200);
    await vi.waitFor(async () => expect(await accepted('boxens.ex.hcc.dev')).toEqual({ NamesAccepted: 'True NoConflicts: no conflicts found', Established: 'True InitialNamesAccepted: the initial names have been accepted' }), { timeout: 10_000, interval: 100 });
    await vi.waitFor(async () => expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/boxens')).code).toBe(200), { timeout: 10_000, interval: 100 });
    const box = await call('POST', '/apis/ex.hcc.dev/v1/namespaces/ns/boxens', { apiVersion: 'ex.hcc.dev/v1', kind: 'Box', metadata: { name: 'b' } });
    expect(box.code).toBe(201);
  });
});

describe('deprecated CRD versions', () => {
  const { cc, call } = controlCenterFor({ namespaces: ['ns'] });
  const warningOf = async (url: string, method = 'GET') => {
    const ac = new AbortController();
    const res = await fetch(cc().url + url, { method, headers: { authorization: `Bearer ${cc().adminToken}` }, signal: ac.signal });
    const w = res.headers.get('warning');
    ac.abort();
    return w;
  };

  it('warn every request to them, with the CRD\'s deprecationWarning or upstream\'s default naming the version to use', async () => {
    const schema = { openAPIV3Schema: { type: 'object' } };
    const body = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'deps.ex.hcc.dev' },
      spec: {
        group: 'ex.hcc.dev',
        scope: 'Namespaced',
        names: { plural: 'deps', kind: 'Dep' },
        versions: [
          { name: 'v1alpha1', served: true, storage: false, deprecated: true, deprecationWarning: 'v1alpha1 goes away in 2027', schema },
          { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
          { name: 'v1', served: true, storage: true, schema },
        ],
      },
    };
    expect((await call('POST', CRDS, body)).code).toBe(201);
    expect(await warningOf('/apis/ex.hcc.dev/v1beta1/namespaces/ns/deps')).toBe('299 - "ex.hcc.dev/v1beta1 Dep is deprecated; use ex.hcc.dev/v1 Dep"');
    expect(await warningOf('/apis/ex.hcc.dev/v1alpha1/namespaces/ns/deps')).toBe('299 - "v1alpha1 goes away in 2027"');
    expect(await warningOf('/apis/ex.hcc.dev/v1beta1/namespaces/ns/deps?watch=true')).toBe('299 - "ex.hcc.dev/v1beta1 Dep is deprecated; use ex.hcc.dev/v1 Dep"');
    expect(await warningOf('/apis/ex.hcc.dev/v1beta1/namespaces/ns/deps/missing')).toBe('299 - "ex.hcc.dev/v1beta1 Dep is deprecated; use ex.hcc.dev/v1 Dep"');
    expect(await warningOf('/apis/ex.hcc.dev/v1/namespaces/ns/deps')).toBeNull();
  });
});

describe('CRD versions and schema checks', () => {
  const { call } = controlCenterFor();
  const post = (body: unknown) => call('POST', CRDS, body);

  it('refuses version names that are not DNS-1035 labels, or given twice', async () => {
    const c = crd('vers');
    const v = c.spec.versions[0]!;
    const r = await post({ ...c, spec: { ...c.spec, versions: [{ ...v, name: 'V1' }, { ...v, name: 'v2', storage: false }, { ...v, name: 'v2', storage: false }] } });
    expect(r.code).toBe(422);
    expect(r.body.message).toContain('spec.versions[0].name: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character');
    expect(r.body.message).toContain('spec.versions: Invalid value: ["V1","v2","v2"]: must contain unique version names');
  });

  it('refuses a map list without keys and a default of another type than its field', async () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            l: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } },
            n: { type: 'integer', default: 'x' },
            f: { type: 'number', default: 1 },
            z: { type: 'string', nullable: true, default: null },
          },
        },
      },
    };
    const r = await post(crd('defs', { schema }));
    expect(r.code).toBe(422);
    expect(r.body.message).toContain('spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map');
    expect(r.body.message).toContain('spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[n].default: Invalid value: "x": must be of type integer: "string"');
    // A whole number for a number, null for a nullable field: fine.
    expect(r.body.message).not.toContain('properties[f]');
    expect(r.body.message).not.toContain('properties[z]');
  });

  it('refuses a schema that is not structural, metadata beyond name and generateName, and a Webhook conversion without its webhook', async () => {
    const schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { labels: { type: 'object' } } },
        spec: { properties: { a: { type: 'string' } } },
        both: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
        list: { type: 'array', items: { properties: { a: { type: 'string' } } } },
        ios: { 'x-kubernetes-int-or-string': true },
        any: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    const r = await post(crd('structs', { schema, specExtra: { conversion: { strategy: 'Webhook' } } }));
    expect(r.code).toBe(422);
    const base = 'spec.versions[0].schema.openAPIV3Schema';
    expect(r.body.message).toContain(`${base}.properties[spec].type: Required value: must not be empty for specified object fields`);
    expect(r.body.message).toContain(`${base}.properties[list].items.type: Required value: must not be empty for specified array items`);
    expect(r.body.message).toContain(`${base}.properties[both].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`);
    expect(r.body.message).toContain(`${base}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`);
    expect(r.body.message).toContain('spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook');
    expect(r.body.message).toContain('spec.conversion.conversionReviewVersions: Required value');
    expect(r.body.message).not.toContain('properties[ios]');
    expect(r.body.message).not.toContain('properties[any]');
    // Value validations under anyOf name fields without types, as upstream's structural rules want them.
    const alt = { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, anyOf: [{ properties: { a: { minLength: 1 } }, required: ['a'] }, { required: ['b'] }] } } };
    expect((await post(crd('alts', { schema: alt }))).code).toBe(201);
    // additionalProperties given as a boolean is no schema node to check.
    const bool = { type: 'object', properties: { spec: { type: 'object', additionalProperties: true, 'x-kubernetes-preserve-unknown-fields': true } } };
    const b = await post(crd('bools', { schema: bool }));
    expect(b.code, JSON.stringify(b.body)).not.toBe(500);
  });
});

describe('CRD status and names, as apiextensions-apiserver keeps them', () => {
  const { call, cc } = controlCenterFor({ namespaces: ['ns'] });
  const patch = async (url: string, body: unknown) => {
    const res = await fetch(cc().url + url, { method: 'PATCH', headers: { authorization: `Bearer ${cc().adminToken}`, 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(body) });
    return { code: res.status, body: (await res.json()) as Record<string, any> };
  };
  const named = (plural: string, names: Record<string, unknown>) => {
    const c = crd(plural);
    return { ...c, spec: { ...c.spec, names: { plural, ...names } } };
  };
  const discovered = async (plural: string) => ((await call('GET', '/apis/ex.hcc.dev/v1')).body.resources as { name: string; kind: string; shortNames?: string[] }[]).find((r) => r.name === plural);

  it('decodes a status write into the CRD status type: a malformed one is refused, not stored', async () => {
    const created = await call('POST', CRDS, crd('kiwis'));
    expect(created.code).toBe(201);
    // apiextensions/v1's defaults, as any cluster shows them.
    expect(created.body.spec.names).toEqual({ plural: 'kiwis', kind: 'Kiwi', singular: 'kiwi', listKind: 'KiwiList' });
    expect(created.body.spec.conversion).toEqual({ strategy: 'None' });
    const bad = await patch(`${CRDS}/kiwis.ex.hcc.dev/status`, { status: { conditions: 'x' } });
    // As kube-apiserver answers a patch whose result does not decode: 422 on the field `patch`.
    expect([bad.code, bad.body.message]).toEqual([422, expect.stringContaining('cannot unmarshal string into Go struct field CustomResourceDefinition.status.conditions')]);
    const shorts = await patch(`${CRDS}/kiwis.ex.hcc.dev/status`, { status: { acceptedNames: { shortNames: 5 } } });
    expect([shorts.code, shorts.body.message]).toEqual([422, expect.stringContaining('cannot unmarshal number into Go struct field CustomResourceDefinition.status.acceptedNames.shortNames of type []string')]);
    const badName = await patch(`${CRDS}/kiwis.ex.hcc.dev/status`, { status: { acceptedNames: { shortNames: ['Not_A_Label'] } } });
    expect([badName.code, badName.body.message]).toEqual([422, expect.stringContaining('status.acceptedNames.shortNames[0]: Invalid value: "Not_A_Label"')]);
    // Still served, with its conditions intact.
    expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/kiwis')).code).toBe(200);
  });

  it('keeps plural always and kind once Established, and refuses kind equal to listKind', async () => {
    expect((await call('POST', CRDS, named('figs', { kind: 'Fig', shortNames: ['fg'] }))).code).toBe(201);
    const kind = await patch(`${CRDS}/figs.ex.hcc.dev`, { spec: { names: { kind: 'Grape' } } });
    expect([kind.code, kind.body.message]).toEqual([422, expect.stringContaining('spec.names.kind: Invalid value: "Grape": field is immutable')]);
    const plural = await patch(`${CRDS}/figs.ex.hcc.dev`, { spec: { names: { plural: 'figz' } } });
    expect(plural.code).toBe(422);
    expect(plural.body.message).toContain('spec.names.plural: Invalid value: "figz": field is immutable');
    const same = await call('POST', CRDS, named('limes', { kind: 'Lime', listKind: 'Lime' }));
    expect([same.code, same.body.message]).toEqual([422, expect.stringContaining('spec.names.listKind: Invalid value: "Lime": kind and listKind may not be the same')]);
  });

  it('serves the accepted names: a short name another CRD holds is not served for this one until it is free', async () => {
    expect((await call('POST', CRDS, named('pears', { kind: 'Pear', shortNames: ['pr'] }))).code).toBe(201);
    expect((await call('POST', CRDS, named('plums', { kind: 'Plum', shortNames: ['pl'] }))).code).toBe(201);
    const renamed = await patch(`${CRDS}/plums.ex.hcc.dev`, { spec: { names: { shortNames: ['pr'] } } });
    expect(renamed.code).toBe(200);
    expect(renamed.body.status.conditions.find((c: { type: string }) => c.type === 'NamesAccepted').reason).toBe('ShortNamesConflict');
    // Discovery keeps the names plums was accepted under; pr stays pears' alone.
    expect((await discovered('plums'))?.shortNames).toEqual(['pl']);
    expect((await discovered('pears'))?.shortNames).toEqual(['pr']);
  });

  it('decides again a NamesAccepted written by hand into the status', async () => {
    expect((await call('POST', CRDS, named('hazels', { kind: 'Hazel' }))).code).toBe(201);
    expect((await call('POST', CRDS, named('jays', { kind: 'Hazel', singular: 'jay', listKind: 'JayList' }))).code).toBe(201);
    expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/jays')).code).toBe(404);
    const forged = await patch(`${CRDS}/jays.ex.hcc.dev/status`, { status: { conditions: [{ type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, { type: 'Reviewed', status: 'True', reason: 'ByHand', message: 'kept' }] } });
    expect(forged.code).toBe(200);
    await vi.waitFor(async () => {
      const c = (await call('GET', `${CRDS}/jays.ex.hcc.dev`)).body.status.conditions.find((x: { type: string }) => x.type === 'NamesAccepted');
      expect(`${c.status} ${c.reason}`).toBe('False KindConflict');
    }, { timeout: 10_000, interval: 100 });
    await vi.waitFor(async () => expect((await call('GET', '/apis/ex.hcc.dev/v1/namespaces/ns/jays')).code).toBe(404), { timeout: 10_000, interval: 100 });
    // A condition of another type stays (SetCRDCondition replaces by type).
    expect((await call('GET', `${CRDS}/jays.ex.hcc.dev`)).body.status.conditions.map((c: { type: string }) => c.type)).toEqual(['NamesAccepted', 'Established', 'Reviewed']);
    // Never Established, so its scope may still change (upstream's requireImmutableNames); kind too.
    expect((await patch(`${CRDS}/jays.ex.hcc.dev`, { spec: { scope: 'Cluster', names: { kind: 'Jay' } } })).code).toBe(200);
  });

  it('refuses a conversion block apiextensions refuses, and defaults a webhook service port', async () => {
    const conv = (plural: string, conversion: unknown) => ({ ...crd(plural), spec: { ...crd(plural).spec, conversion } });
    const msg = async (plural: string, conversion: unknown) => {
      const r = await call('POST', CRDS, conv(plural, conversion));
      return `${r.code} ${r.body.message ?? ''}`;
    };
    expect(await msg('convas', {})).toContain('spec.conversion.strategy: Required value');
    const none = await msg('convbs', { strategy: 'None', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x.example/c' } } });
    expect(none).toContain('spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook');
    expect(none).toContain('spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook');
    expect(await msg('convcs', { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example/c' } } })).toContain('spec.conversion.conversionReviewVersions: Required value');
    expect(await msg('convds', { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: {} } })).toContain('spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required');
    expect(await msg('convfs', { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v2'], clientConfig: { url: 'https://x.example/c' } } })).toContain('must include at least one of v1, v1beta1');
    const ok = await call('POST', CRDS, conv('convgs', { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 'svc', namespace: 'default', path: '/convert' } } } }));
    expect(ok.code).toBe(201);
    expect(ok.body.spec.conversion.webhook.clientConfig.service.port).toBe(443);
  });

  it('keeps every version objects were stored in until the storage migration removes it from status.storedVersions', async () => {
    const two = crd('melons');
    const schema = { openAPIV3Schema: { type: 'object' } };
    two.spec.versions = [{ name: 'v1', served: true, storage: false, schema }, { name: 'v2', served: true, storage: true, schema }] as never;
    const v1only = crd('melons');
    expect((await call('POST', CRDS, v1only)).code).toBe(201);
    const cur = await call('GET', `${CRDS}/melons.ex.hcc.dev`);
    // An update invalid for another reason is refused for that alone: the new storage version is
    // recorded before validation, as apiextensions' strategy does.
    const badSchema = { ...two.spec, versions: [two.spec.versions[0], { ...two.spec.versions[1], schema: { openAPIV3Schema: { type: 'objekt' } } }] };
    const invalid = await call('PUT', `${CRDS}/melons.ex.hcc.dev`, { ...cur.body, spec: badSchema });
    expect(invalid.code).toBe(422);
    expect(invalid.body.message).toContain('openAPIV3Schema.type');
    expect(invalid.body.message).not.toContain('storedVersions');
    const moved = await call('PUT', `${CRDS}/melons.ex.hcc.dev`, { ...cur.body, spec: two.spec });
    expect(moved.code).toBe(200);
    expect(moved.body.status.storedVersions).toEqual(['v1', 'v2']);
    const dropV1 = { ...moved.body, spec: { ...moved.body.spec, versions: [moved.body.spec.versions[1]] } };
    const refused = await call('PUT', `${CRDS}/melons.ex.hcc.dev`, dropV1);
    expect([refused.code, refused.body.message]).toEqual([422, expect.stringContaining('status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions')]);
    // The migration's last step: the status names v2 only; then v1 may go.
    expect((await patch(`${CRDS}/melons.ex.hcc.dev/status`, { status: { storedVersions: ['v2'] } })).code).toBe(200);
    // A status write's stored versions are kept as written (the naming controller leaves them).
    expect((await patch(`${CRDS}/melons.ex.hcc.dev/status`, { status: { storedVersions: ['v1'] } })).code).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await call('GET', `${CRDS}/melons.ex.hcc.dev`)).body.status.storedVersions).toEqual(['v1']);
    expect((await patch(`${CRDS}/melons.ex.hcc.dev/status`, { status: { storedVersions: ['v2'] } })).code).toBe(200);
    const again = await call('GET', `${CRDS}/melons.ex.hcc.dev`);
    expect((await call('PUT', `${CRDS}/melons.ex.hcc.dev`, { ...again.body, spec: dropV1.spec })).code).toBe(200);
  });
});

describe('a stored CRD whose status is malformed (written before status writes were decoded)', () => {
  it('is read without a crash at start: served as its conditions allow', () => {
    const bad = { ...crd('oddities'), status: { conditions: 'x', acceptedNames: { shortNames: 5 } } };
    const store = { list: () => ({ items: [bad].map((object) => ({ object })), revision: 1 }), watch: () => ({ stop() {} }) };
    const registry = new Registry();
    registry.start(store as unknown as Store);
    // No condition says NamesAccepted or Established: not served, and no exception.
    expect(registry.lookup('ex.hcc.dev', 'v1', 'oddities')).toBeUndefined();
  });
});

describe("hcc's own CRDs at start", () => {
  it('keep, unserved, a version a new release drops while objects may still be stored in it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-crd-upgrade-'));
    const withVersion = (name: string) => ({ ...crd('gizmos'), spec: { ...crd('gizmos').spec, versions: [{ name, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } });
    try {
      const first = await startControlCenter({ tls: false, logger: pino({ enabled: false }), dataDir: dir, crds: [withVersion('v1alpha1')] });
      await first.close();
      // The next release serves v1beta1 only: the start must not fail on the stored v1alpha1.
      const second = await startControlCenter({ tls: false, logger: pino({ enabled: false }), dataDir: dir, crds: [withVersion('v1beta1')] });
      try {
        const stored = second.store.get(`${storagePrefix(customresourcedefinitions)}gizmos.ex.hcc.dev`)!.object as unknown as { spec: { versions: { name: string; served: boolean; storage: boolean }[] }; status: { storedVersions: string[] } };
        expect(stored.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1beta1', true, true], ['v1alpha1', false, false]]);
        expect(stored.status.storedVersions).toEqual(['v1alpha1', 'v1beta1']);
        expect(second.registry.lookup('ex.hcc.dev', 'v1beta1', 'gizmos')).toBeDefined();
        expect(second.registry.lookup('ex.hcc.dev', 'v1alpha1', 'gizmos')).toBeUndefined();
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
