import { describe, expect, it } from 'vitest';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaults.js';
import type { JSONSchemaProps } from './types.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        channel: { type: 'string', default: 'stable' },
        note: { type: 'string', nullable: true, default: 'n/a' },
        networking: {
          type: 'object',
          default: {},
          properties: {
            networkType: { type: 'string', default: 'OVNKubernetes' },
            clusterNetwork: { type: 'array', default: [{ cidr: '10.132.0.0/14' }], items: { type: 'object', properties: { cidr: { type: 'string' }, hostPrefix: { type: 'integer', default: 23 } } } },
          },
        },
        release: { type: 'object', properties: { image: { type: 'string', default: 'quay.io/openshift-release-dev/ocp-release:4.16.0' } } },
        services: {
          type: 'array',
          items: { type: 'object', default: { type: 'Route' }, properties: { type: { type: 'string' }, weight: { type: 'integer', default: 100 } } },
        },
        pools: { type: 'object', additionalProperties: { type: 'object', default: { size: 3 }, properties: { size: { type: 'integer' }, arch: { type: 'string', default: 'amd64' } } } },
      },
    },
  },
};

describe('applyDefaults', () => {
  it.each<{ name: string; input: Record<string, unknown>; want: Record<string, unknown> }>([
    {
      name: 'missing fields get defaults, object defaults are recursed into',
      input: { spec: {} },
      want: {
        spec: {
          replicas: 1,
          channel: 'stable',
          note: 'n/a',
          networking: { networkType: 'OVNKubernetes', clusterNetwork: [{ cidr: '10.132.0.0/14', hostPrefix: 23 }] },
        },
      },
    },
    {
      name: 'existing values are kept',
      input: { spec: { replicas: 3, channel: 'fast', note: 'x', networking: { networkType: 'Other', clusterNetwork: [] } } },
      want: { spec: { replicas: 3, channel: 'fast', note: 'x', networking: { networkType: 'Other', clusterNetwork: [] } } },
    },
    {
      name: 'non-nullable null takes the default, nullable null stays',
      input: { spec: { replicas: null, note: null, networking: { networkType: 'x', clusterNetwork: [] } } },
      want: { spec: { replicas: 1, channel: 'stable', note: null, networking: { networkType: 'x', clusterNetwork: [] } } },
    },
    {
      name: 'defaults inside existing objects only (no parent is created)',
      input: { spec: { replicas: 1, channel: 'a', note: 'b', networking: {}, release: {} } },
      want: {
        spec: {
          replicas: 1,
          channel: 'a',
          note: 'b',
          networking: { networkType: 'OVNKubernetes', clusterNetwork: [{ cidr: '10.132.0.0/14', hostPrefix: 23 }] },
          release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.0' },
        },
      },
    },
    {
      name: 'list items: defaults inside items, null items take the item default',
      input: { spec: { replicas: 1, channel: 'a', note: 'b', networking: { networkType: 'x', clusterNetwork: [] }, services: [{ type: 'NodePort' }, null] } },
      want: {
        spec: {
          replicas: 1,
          channel: 'a',
          note: 'b',
          networking: { networkType: 'x', clusterNetwork: [] },
          services: [
            { type: 'NodePort', weight: 100 },
            { type: 'Route', weight: 100 },
          ],
        },
      },
    },
    {
      name: 'map values: defaults inside values, null values take the value default',
      input: { spec: { replicas: 1, channel: 'a', note: 'b', networking: { networkType: 'x', clusterNetwork: [] }, pools: { a: { size: 1 }, b: null } } },
      want: {
        spec: {
          replicas: 1,
          channel: 'a',
          note: 'b',
          networking: { networkType: 'x', clusterNetwork: [] },
          pools: { a: { size: 1, arch: 'amd64' }, b: { size: 3, arch: 'amd64' } },
        },
      },
    },
    { name: 'no spec: nothing to do below the root', input: { status: {} }, want: { status: {} } },
  ])('$name', ({ input, want }) => {
    const obj = structuredClone(input);
    applyDefaults(obj, schema);
    expect(obj).toEqual(want);
  });

  it('copies defaults instead of sharing them', () => {
    const a: Record<string, unknown> = { spec: {} };
    const b: Record<string, unknown> = { spec: {} };
    applyDefaults(a, schema);
    applyDefaults(b, schema);
    ((a.spec as Record<string, Record<string, unknown[]>>).networking!.clusterNetwork as unknown[]).push('mutated');
    expect((b.spec as Record<string, Record<string, unknown[]>>).networking!.clusterNetwork).toHaveLength(1);
    expect(schema.properties!.spec!.properties!.networking!.properties!.clusterNetwork!.default).toEqual([{ cidr: '10.132.0.0/14' }]);
  });
});

describe('pruneNonNullableNullsWithoutDefaults', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          b: { type: 'string', nullable: true },
          c: { type: 'string', default: 'x' },
          list: { type: 'array', items: { type: 'object', properties: { d: { type: 'string' } } } },
          m: { type: 'object', additionalProperties: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
  it.each<{ name: string; input: Record<string, unknown>; want: Record<string, unknown> }>([
    { name: 'drops non-nullable nulls without default', input: { spec: { a: null, b: null, c: null } }, want: { spec: { b: null, c: null } } },
    { name: 'inside lists and maps', input: { spec: { list: [{ d: null }], m: { k: null } } }, want: { spec: { list: [{}], m: {} } } },
    { name: 'null spec is dropped', input: { spec: null }, want: {} },
    { name: 'root metadata is left alone', input: { metadata: null }, want: { metadata: null } },
    { name: 'unknown fields (no schema) are kept', input: { spec: { free: { x: null } } }, want: { spec: { free: { x: null } } } },
  ])('$name', ({ input, want }) => {
    const obj = structuredClone(input);
    pruneNonNullableNullsWithoutDefaults(obj, s);
    expect(obj).toEqual(want);
  });
});
