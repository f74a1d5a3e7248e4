import { describe, expect, it } from 'vitest';
import { prune } from './prune.js';
import type { JSONSchemaProps } from './types.js';

const hostedCluster: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        platform: {
          type: 'object',
          properties: {
            type: { type: 'string' },
            kubevirt: { type: 'object', properties: { baseDomainPassthrough: { type: 'boolean' } } },
          },
        },
        nodeSelector: { type: 'object', additionalProperties: { type: 'string' } },
        services: {
          type: 'array',
          items: { type: 'object', properties: { service: { type: 'string' } } },
        },
        configuration: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        rawList: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
        },
        emptyObject: { type: 'object' },
        labelsLike: { type: 'object', additionalProperties: true },
      },
    },
    status: { type: 'object', properties: { version: { type: 'string' } } },
  },
};

describe('prune', () => {
  it.each<{ name: string; input: Record<string, unknown>; want: { obj: Record<string, unknown>; paths: string[] } }>([
    {
      name: 'root apiVersion, kind and metadata are never touched',
      input: { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'x', bogus: 1 } },
      want: { obj: { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'x', bogus: 1 } }, paths: [] },
    },
    {
      name: 'unknown nested field',
      input: { spec: { platform: { type: 'KubeVirt', kubevirt: { baseDomain: 'apps.example.com', baseDomainPassthrough: true } } } },
      want: {
        obj: { spec: { platform: { type: 'KubeVirt', kubevirt: { baseDomainPassthrough: true } } } },
        paths: ['spec.platform.kubevirt.baseDomain'],
      },
    },
    {
      name: 'unknown top-level fields, sorted',
      input: { zeta: 1, spec: {}, alpha: { deep: true }, status: { version: '4.16', phase: 'x' } },
      want: { obj: { spec: {}, status: { version: '4.16' } }, paths: ['alpha', 'status.phase', 'zeta'] },
    },
    {
      name: 'map keys are kept, values pruned by their schema',
      input: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux', zone: 'a' } } },
      want: { obj: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux', zone: 'a' } } }, paths: [] },
    },
    {
      name: 'list items are pruned with indexed paths',
      input: { spec: { services: [{ service: 'APIServer', junk: 1 }, { service: 'OAuthServer' }, { extra: { a: 1 } }] } },
      want: { obj: { spec: { services: [{ service: 'APIServer' }, { service: 'OAuthServer' }, {}] } }, paths: ['spec.services[0].junk', 'spec.services[2].extra'] },
    },
    {
      name: 'preserve-unknown-fields keeps unknown keys but prunes declared children',
      input: { spec: { configuration: { anything: { goes: [1, 2] }, known: { a: 'x', b: 'pruned' } } } },
      want: { obj: { spec: { configuration: { anything: { goes: [1, 2] }, known: { a: 'x' } } } }, paths: ['spec.configuration.known.b'] },
    },
    {
      name: 'preserved list items keep everything',
      input: { spec: { rawList: [{ a: 1, b: { c: 2 } }] } },
      want: { obj: { spec: { rawList: [{ a: 1, b: { c: 2 } }] } }, paths: [] },
    },
    {
      name: 'embedded resources keep apiVersion, kind and metadata',
      input: { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { replicas: 1, paused: true }, junk: 1 } } },
      want: {
        obj: { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { replicas: 1 } } } },
        paths: ['spec.template.junk', 'spec.template.spec.paused'],
      },
    },
    {
      name: 'an object without properties loses all fields',
      input: { spec: { emptyObject: { a: 1, b: 2 } } },
      want: { obj: { spec: { emptyObject: {} } }, paths: ['spec.emptyObject.a', 'spec.emptyObject.b'] },
    },
    {
      name: 'additionalProperties true keeps keys, empties nested objects',
      input: { spec: { labelsLike: { a: 'x', b: { c: 1 } } } },
      want: { obj: { spec: { labelsLike: { a: 'x', b: {} } } }, paths: ['spec.labelsLike.b.c'] },
    },
    {
      name: 'kind below the root is an ordinary field',
      input: { spec: { platform: { kind: 'x' } } },
      want: { obj: { spec: { platform: {} } }, paths: ['spec.platform.kind'] },
    },
    {
      name: 'scalars where objects are declared are left alone',
      input: { spec: { platform: 'AWS' } },
      want: { obj: { spec: { platform: 'AWS' } }, paths: [] },
    },
  ])('$name', ({ input, want }) => {
    const obj = structuredClone(input);
    const paths = prune(obj, hostedCluster);
    expect({ obj, paths }).toEqual(want);
  });

  it.each<{ name: string; input: { schema: JSONSchemaProps | undefined; value: unknown; root: boolean }; want: { value: unknown; paths: string[] } }>([
    {
      name: 'not a resource root: meta fields are pruned too (silently at the top)',
      input: { schema: { type: 'object', properties: { a: { type: 'string' } } }, value: { kind: 'x', a: 'y', b: 1 }, root: false },
      want: { value: { a: 'y' }, paths: ['b'] },
    },
    {
      name: 'root preserve-unknown-fields',
      input: { schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, value: { spec: { a: 1 } }, root: true },
      want: { value: { spec: { a: 1 } }, paths: [] },
    },
    {
      name: 'no schema at all prunes everything but meta',
      input: { schema: undefined, value: { apiVersion: 'v1', spec: { a: 1 } }, root: true },
      want: { value: { apiVersion: 'v1' }, paths: ['spec'] },
    },
    {
      name: 'lists without items schema lose object contents',
      input: { schema: { type: 'object', properties: { l: { type: 'array' } } }, value: { l: [{ a: 1 }, 'x'] }, root: true },
      want: { value: { l: [{}, 'x'] }, paths: ['l[0].a'] },
    },
  ])('$name', ({ input, want }) => {
    const value = structuredClone(input.value);
    const paths = prune(value, input.schema, input.root);
    expect({ value, paths }).toEqual(want);
  });
});
