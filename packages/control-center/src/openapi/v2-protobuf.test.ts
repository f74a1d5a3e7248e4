import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { decodeOpenAPIV2, encodeOpenAPIV2 } from './v2-protobuf.js';
import { OpenAPIBuilder, toV2Schema } from './openapi.js';
import { builtinSchema } from './builtin-schemas.js';
import { builtinResources, Registry } from '../registry/registry.js';

describe('encodeOpenAPIV2', () => {
  it('writes gnostic field numbers: `swagger: "2.0"` is field 1', () => {
    expect([...encodeOpenAPIV2({ swagger: '2.0' })]).toEqual([0x0a, 0x03, 0x32, 0x2e, 0x30]);
  });

  it('encodes a schema nested deeper than protobufjs lets verify/fromObject go (a CRD 200 properties deep), and leaves its limit as it was', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 200; i++) schema = { type: 'object', properties: { a: schema } };
    const bytes = encodeOpenAPIV2({ swagger: '2.0', definitions: { deep: schema } });
    let decoded = (decodeOpenAPIV2(bytes) as { definitions: { additional_properties: { value: unknown }[] } }).definitions.additional_properties[0]!.value as Record<string, any>;
    let depth = 0;
    while (decoded.properties) {
      decoded = decoded.properties.additional_properties[0].value;
      depth++;
    }
    expect(depth).toBe(200);
    expect(protobuf.util.recursionLimit).toBe(100);
  });

  it('encodes definitions, paths, parameters and vendor extensions the way kubectl reads them', () => {
    const gvk = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster' };
    const doc = {
      swagger: '2.0',
      info: { title: 'Kubernetes', version: 'v1.35.0' },
      paths: {
        '/apis/hypershift.openshift.io/v1beta1/namespaces/{namespace}/hostedclusters/{name}': {
          patch: {
            operationId: 'patchHostedCluster',
            consumes: ['application/merge-patch+json'],
            parameters: [
              { name: 'dryRun', in: 'query', type: 'string', uniqueItems: true },
              { name: 'body', in: 'body', required: true, schema: { type: 'object' } },
            ],
            responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/x.HostedCluster' } } },
            'x-kubernetes-group-version-kind': gvk,
          },
        },
      },
      definitions: {
        'x.HostedCluster': {
          type: 'object',
          required: ['spec'],
          properties: {
            spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32', minimum: 0, default: 2 }, mode: { type: 'string', enum: ['A', 'B'] } } },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            list: { type: 'array', items: { type: 'string' } },
          },
          'x-kubernetes-group-version-kind': [gvk],
        },
      },
    };
    const got = decodeOpenAPIV2(encodeOpenAPIV2(doc));
    expect(got).toMatchObject({
      swagger: '2.0',
      info: { title: 'Kubernetes', version: 'v1.35.0' },
      paths: {
        path: [
          {
            name: '/apis/hypershift.openshift.io/v1beta1/namespaces/{namespace}/hostedclusters/{name}',
            value: {
              patch: {
                operation_id: 'patchHostedCluster',
                consumes: ['application/merge-patch+json'],
                parameters: [
                  { parameter: { non_body_parameter: { query_parameter_sub_schema: { name: 'dryRun', in: 'query', type: 'string', unique_items: true } } } },
                  { parameter: { body_parameter: { name: 'body', in: 'body', required: true, schema: { type: { value: ['object'] } } } } },
                ],
                responses: { response_code: [{ name: '200', value: { response: { description: 'OK', schema: { schema: { _ref: '#/definitions/x.HostedCluster' } } } } }] },
                vendor_extension: [{ name: 'x-kubernetes-group-version-kind', value: { yaml: JSON.stringify(gvk) } }],
              },
            },
          },
        ],
      },
    });
    const def = (got.definitions as { additional_properties: { name: string; value: Record<string, unknown> }[] }).additional_properties[0]!;
    expect(def.name).toBe('x.HostedCluster');
    expect(def.value).toMatchObject({
      type: { value: ['object'] },
      required: ['spec'],
      vendor_extension: [{ name: 'x-kubernetes-group-version-kind', value: { yaml: JSON.stringify([gvk]) } }],
      properties: {
        additional_properties: [
          {
            name: 'spec',
            value: {
              properties: {
                additional_properties: [
                  { name: 'replicas', value: { type: { value: ['integer'] }, format: 'int32', minimum: 0, default: { yaml: '2' } } },
                  { name: 'mode', value: { type: { value: ['string'] }, enum: [{ yaml: '"A"' }, { yaml: '"B"' }] } },
                ],
              },
            },
          },
          { name: 'labels', value: { additional_properties: { schema: { type: { value: ['string'] } } } } },
          { name: 'list', value: { type: { value: ['array'] }, items: { schema: [{ type: { value: ['string'] } }] } } },
        ],
      },
    });
  });
});

describe('toV2Schema (ToStructuralOpenAPIV2)', () => {
  it.each([
    {
      name: 'drops junctors',
      input: { type: 'string', anyOf: [{ format: 'a' }], allOf: [{}], oneOf: [{}], not: {} },
      want: { type: 'string' },
    },
    {
      name: 'int-or-string becomes untyped',
      input: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      want: { 'x-kubernetes-int-or-string': true },
    },
    {
      name: 'nullable loses its type and shape, and is no longer required',
      input: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'object', nullable: true, properties: { x: { type: 'string' } } }, b: { type: 'string' } } },
      want: { type: 'object', required: ['b'], properties: { a: {}, b: { type: 'string' } } },
    },
    {
      name: 'preserve-unknown-fields drops properties; an array without items drops its type',
      input: { type: 'object', properties: { o: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { k: { type: 'string' } } }, l: { type: 'array', items: { type: 'object', nullable: true } }, m: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } } } },
      want: { type: 'object', properties: { o: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, l: { type: 'array', items: {} }, m: { 'x-kubernetes-preserve-unknown-fields': true } } },
    },
    {
      name: 'a nullable map value clears required',
      input: { type: 'object', required: ['x'], additionalProperties: { type: 'string', nullable: true } },
      want: { type: 'object', additionalProperties: {} },
    },
  ])('$name', ({ input, want }) => {
    expect(toV2Schema(input)).toEqual(want);
  });
});

describe('the /openapi/v2 document', () => {
  it('describes every built-in kind (old kubectl validates and patches them from it)', () => {
    for (const r of builtinResources) expect(builtinSchema(r.group, r.version, r.kind), `${r.group}/${r.version}/${r.kind}`).toBeDefined();
  });

  it('carries the kinds, and PATCH operations with dryRun tagged with their kind (what kubectl 1.20 looks for before `kubectl diff`)', () => {
    const builder = new OpenAPIBuilder(new Registry());
    const doc = decodeOpenAPIV2(builder.v2Protobuf().body) as {
      definitions: { additional_properties: { name: string; value: { vendor_extension?: { name: string; value: { yaml: string } }[]; properties?: unknown } }[] };
      paths: { path: { name: string; value: { patch?: { parameters: { parameter?: { non_body_parameter?: { query_parameter_sub_schema?: { name: string } } } }[]; vendor_extension: { name: string; value: { yaml: string } }[] } } }[] };
    };
    const secret = doc.definitions.additional_properties.find((d) => d.name === 'io.k8s.api.core.v1.Secret')!;
    expect(JSON.parse(secret.value.vendor_extension!.find((e) => e.name === 'x-kubernetes-group-version-kind')!.value.yaml)).toEqual([{ group: '', version: 'v1', kind: 'Secret' }]);
    expect(secret.value.properties).toBeDefined();
    const ns = doc.paths.path.find((p) => p.name === '/api/v1/namespaces/{name}')!;
    expect(JSON.parse(ns.value.patch!.vendor_extension.find((e) => e.name === 'x-kubernetes-group-version-kind')!.value.yaml)).toEqual({ group: '', version: 'v1', kind: 'Namespace' });
    expect(ns.value.patch!.parameters.map((p) => p.parameter?.non_body_parameter?.query_parameter_sub_schema?.name)).toContain('dryRun');
  });
});
