/**
 * Accept headers read as kube-apiserver reads them (goautoneg.ParseAccept, then the negotiation):
 * ranges by quality, then specific before wildcard, else as written; an error Status passes over
 * Table and metadata ranges (DefaultEndpointRestrictions).
 */
import { describe, expect, it } from 'vitest';
import { negotiateResource, parseAccept, wantsYAML, wantsYAMLStatus } from './negotiate.js';

describe('parseAccept', () => {
  it('orders ranges by quality, then a specific type before a wildcard, else as written', () => {
    const types = (accept: string) => parseAccept(accept).map((r) => `${r.type}${r.q === 1 ? '' : `;q=${r.q}`}`);
    expect(types('application/yaml;q=0.5, application/json')).toEqual(['application/json', 'application/yaml;q=0.5']);
    expect(types('*/*, application/yaml')).toEqual(['application/yaml', '*/*']);
    expect(types('application/*, application/yaml')).toEqual(['application/yaml', 'application/*']);
    expect(types('application/json;q=0.1, application/yaml')).toEqual(['application/yaml', 'application/json;q=0.1']);
    expect(types('application/yaml, application/json')).toEqual(['application/yaml', 'application/json']);
    // `*` alone is `*/*`; a range without a subtype is dropped; a q that is no number is 0. (And,
    // as goautoneg's comparison goes, a specific type still moves ahead of a wildcard it follows.)
    expect(types('*, text, application/json;q=x')).toEqual(['application/json;q=0', '*/*']);
    expect(parseAccept('application/json;as=Table;g=meta.k8s.io;v=v1;q=0.9')[0]!.params).toEqual({ as: 'Table', g: 'meta.k8s.io', v: 'v1' });
  });

  it('picks the response by that order', () => {
    expect(wantsYAML('application/yaml;q=0.5, application/json')).toBe(false);
    expect(wantsYAML('*/*, application/yaml')).toBe(true);
    expect(wantsYAML('application/json;q=0.1, application/yaml')).toBe(true);
    expect(negotiateResource('application/json;q=0.5, application/json;as=Table;g=meta.k8s.io;v=v1')).toEqual({ kind: 'table', version: 'v1' });
    expect(() => negotiateResource('text, ')).toThrow(/only the following media types are accepted/);
  });

  it('answers an error Status as YAML past Table, metadata and protobuf ranges', () => {
    expect(wantsYAMLStatus('application/json;as=Table;v=v1;g=meta.k8s.io, application/yaml')).toBe(true);
    expect(wantsYAMLStatus('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, application/yaml')).toBe(true);
    expect(wantsYAMLStatus('application/vnd.kubernetes.protobuf, application/yaml')).toBe(true);
    expect(wantsYAMLStatus('application/yaml;q=0.5, application/json')).toBe(false);
    expect(wantsYAMLStatus('text/html')).toBe(false);
    expect(wantsYAMLStatus(undefined)).toBe(false);
  });
});
