import { describe, expect, it } from 'vitest';
import { JSONPathError, compileJSONPath, humanDuration, parseRFC3339, printerColumnCell } from './jsonpath.js';

const hc = {
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'HostedCluster',
  metadata: {
    name: 'example',
    namespace: 'clusters',
    labels: { 'controlcenter.hcc.dev/management-cluster': 'mgmt-1', env: 'prod' },
    creationTimestamp: '2024-05-01T10:00:00Z',
  },
  spec: {
    replicas: 3,
    ratio: 0.75,
    paused: false,
    note: null,
    platform: { type: 'KubeVirt' },
    services: [
      { service: 'APIServer', publishingStrategy: { type: 'LoadBalancer' } },
      { service: 'OAuthServer', publishingStrategy: { type: 'Route' } },
      { service: 'Konnectivity', publishingStrategy: { type: 'Route' } },
    ],
  },
  status: {
    version: { history: [{ version: '4.16.2', state: 'Completed' }] },
    conditions: [
      { type: 'Available', status: 'True', priority: 1, weight: 1.5 },
      { type: 'Degraded', status: 'False', priority: 2, weight: 0.5 },
      { type: 'Progressing', status: 'False', priority: 3 },
    ],
  },
};

describe('compileJSONPath → evaluate', () => {
  it.each<{ name: string; input: string; want: unknown[] }>([
    { name: 'bare path', input: '.metadata.name', want: ['example'] },
    { name: 'template', input: '{.metadata.name}', want: ['example'] },
    { name: 'relaxed without leading dot', input: 'metadata.namespace', want: ['clusters'] },
    { name: 'dollar root', input: '$.kind', want: ['HostedCluster'] },
    { name: 'escaped dots in a label key', input: '.metadata.labels.controlcenter\\.hcc\\.dev/management-cluster', want: ['mgmt-1'] },
    { name: 'bracket key with escaped dots', input: "{.metadata.labels['controlcenter\\.hcc\\.dev/management-cluster']}", want: ['mgmt-1'] },
    { name: 'bracket key without escaping splits on dots (as upstream)', input: "{.metadata.labels['controlcenter.hcc.dev/management-cluster']}", want: [] },
    { name: 'index', input: '.spec.services[1].service', want: ['OAuthServer'] },
    { name: 'negative index', input: '.spec.services[-1].service', want: ['Konnectivity'] },
    { name: 'wildcard index', input: '.spec.services[*].service', want: ['APIServer', 'OAuthServer', 'Konnectivity'] },
    { name: 'slice', input: '.spec.services[0:2].service', want: ['APIServer', 'OAuthServer'] },
    { name: 'slice with step', input: '.spec.services[0:3:2].service', want: ['APIServer', 'Konnectivity'] },
    { name: 'open slice', input: '.spec.services[1:].service', want: ['OAuthServer', 'Konnectivity'] },
    { name: 'union', input: '.spec.services[0,2].service', want: ['APIServer', 'Konnectivity'] },
    { name: 'filter ==', input: '.status.conditions[?(@.type=="Available")].status', want: ['True'] },
    { name: 'filter with single quotes and spaces', input: "{.status.conditions[?(@.type == 'Degraded')].status}", want: ['False'] },
    { name: 'filter !=', input: '.status.conditions[?(@.status!="True")].type', want: ['Degraded', 'Progressing'] },
    { name: 'filter on integers', input: '.status.conditions[?(@.priority>1)].type', want: ['Degraded', 'Progressing'] },
    { name: 'filter <=', input: '.status.conditions[?(@.priority<=2)].type', want: ['Available', 'Degraded'] },
    { name: 'filter on floats', input: '.status.conditions[?(@.weight>1.0)].type', want: ['Available'] },
    { name: 'filter existence', input: '.status.conditions[?(@.weight)].type', want: ['Available', 'Degraded'] },
    { name: 'filter then nested field', input: '.spec.services[?(@.publishingStrategy.type=="Route")].service', want: ['OAuthServer', 'Konnectivity'] },
    { name: 'recursive descent', input: '..service', want: ['APIServer', 'OAuthServer', 'Konnectivity'] },
    { name: 'recursive descent with filter', input: '..history[?(@.state=="Completed")].version', want: ['4.16.2'] },
    { name: 'map wildcard', input: '.metadata.labels.*', want: ['mgmt-1', 'prod'] },
    { name: 'missing key gives nothing', input: '.status.missing.deeper', want: [] },
    { name: 'integer', input: '.spec.replicas', want: [3] },
    { name: 'boolean false', input: '.spec.paused', want: [false] },
    { name: 'null is a result', input: '.spec.note', want: [null] },
    { name: 'object result', input: '.spec.platform', want: [{ type: 'KubeVirt' }] },
    { name: 'out of range index is an error → no results', input: '.spec.services[5].service', want: [] },
    { name: 'index on a map is an error → no results', input: '.spec.platform[0]', want: [] },
    { name: 'template with text', input: 'name={.metadata.name}', want: ['name=', 'example'] },
    { name: 'several actions', input: '{.metadata.namespace}/{.metadata.name}', want: ['clusters', '/', 'example'] },
  ])('$name: $input', ({ input, want }) => {
    expect(compileJSONPath(input).evaluate(hc)).toEqual(want);
  });
});

describe('findResults errors', () => {
  it.each([
    { name: 'index out of range', input: '.spec.services[5]', want: 'array index out of bounds: index 5, length 3' },
    { name: 'slice end out of range', input: '.spec.services[0:9]', want: 'array index out of bounds: index 8, length 3' },
    { name: 'start after end', input: '.spec.services[2:1]', want: 'starting index 2 is greater than ending index 1' },
    { name: 'not a list', input: '.spec.platform[0]', want: 'map[string]interface {} is not array or slice' },
    { name: 'filter on a map', input: '.spec.platform[?(@.a)]', want: 'map[type:KubeVirt] is not array or slice and cannot be filtered' },
    { name: 'string compared with integer', input: '.status.conditions[?(@.type==1)]', want: 'incompatible types for comparison' },
    { name: 'integer field compared with float', input: '.status.conditions[?(@.priority==1.0)]', want: 'incompatible types for comparison' },
    { name: 'ordering booleans', input: '.status.conditions[?(@.type<true)]', want: 'incompatible types for comparison' },
    { name: 'unknown filter operator', input: '.status.conditions[?(@.type="x")]', want: 'unrecognized filter operator =' },
    { name: 'bad step', input: '.spec.services[0:2:0]', want: 'step must be > 0' },
    { name: 'end without range', input: '{end}', want: 'not in range, nothing to end' },
    { name: 'unknown identifier', input: '{foo}', want: 'unrecognized identifier foo' },
  ])('$name', ({ input, want }) => {
    expect(() => compileJSONPath(input).findResults(hc)).toThrowError(new JSONPathError(want));
  });

  it('missing keys are errors when not allowed', () => {
    expect(() => compileJSONPath('.spec.missing', { allowMissingKeys: false }).findResults(hc)).toThrowError(new JSONPathError('missing is not found'));
  });
});

describe('compileJSONPath syntax errors', () => {
  it.each([
    { name: 'unclosed action', input: '{.metadata.name', want: 'unclosed action' },
    { name: 'unterminated array', input: '{.spec.services[0}', want: 'unterminated array' },
    { name: 'invalid index', input: '{.spec.services[a]}', want: 'invalid array index a' },
    { name: 'unterminated filter', input: '{.a[?(@.b=="x"}', want: 'unterminated filter' },
    { name: 'unclosed filter bracket', input: '{.a[?(@.b=="x")x]}', want: 'unclosed array expect ]' },
    { name: 'unterminated quote', input: '{"abc}', want: 'unterminated quoted string' },
    { name: 'bad character', input: '{!a}', want: "unrecognized character in action: U+0021 '!'" },
    { name: 'double recursive', input: '{.....a}', want: 'invalid multiple recursive descent' },
    { name: 'bad number', input: '{1.2.3}', want: 'cannot parse number 1.2.3' },
  ])('$name', ({ input, want }) => {
    expect(() => compileJSONPath(input)).toThrowError(new JSONPathError(want));
  });

  it('a bang inside a field name is part of the name', () => {
    expect(compileJSONPath('{.a!b}').evaluate({ 'a!b': 1 })).toEqual([1]);
  });
});

describe('print (kubectl -o jsonpath)', () => {
  const list = { kind: 'List', items: [hc, { ...hc, metadata: { ...hc.metadata, name: 'other' } }] };
  it.each([
    { name: 'scalar', input: { expr: '{.metadata.name}', obj: hc }, want: 'example' },
    { name: 'several results are space separated', input: { expr: '{.spec.services[*].service}', obj: hc }, want: 'APIServer OAuthServer Konnectivity' },
    { name: 'objects print as Go JSON (sorted keys)', input: { expr: '{.metadata.labels}', obj: hc }, want: '{"controlcenter.hcc.dev/management-cluster":"mgmt-1","env":"prod"}' },
    { name: 'lists print as JSON', input: { expr: '{.status.version.history}', obj: hc }, want: '[{"state":"Completed","version":"4.16.2"}]' },
    { name: 'null prints <nil>', input: { expr: '{.spec.note}', obj: hc }, want: '<nil>' },
    { name: 'numbers', input: { expr: '{.spec.replicas} {.spec.ratio}', obj: hc }, want: '3 0.75' },
    { name: 'range', input: { expr: '{range .items[*]}{.metadata.name}{"\\n"}{end}', obj: list }, want: 'example\nother\n' },
    { name: 'range with text and tabs', input: { expr: '{range .items[*]}[{.metadata.name}]{"\\t"}{end}done', obj: list }, want: '[example]\t[other]\tdone' },
    { name: 'nested range', input: { expr: '{range .items[*]}{range .spec.services[0:1]}{.service};{end}{end}', obj: list }, want: 'APIServer;APIServer;' },
    { name: 'html characters are escaped in JSON', input: { expr: '{.a}', obj: { a: { b: '<&>' } } }, want: '{"b":"\\u003c\\u0026\\u003e"}' },
    { name: 'literal float', input: { expr: '{1.50}', obj: {} }, want: '1.5' },
  ])('$name', ({ input, want }) => {
    expect(compileJSONPath(input.expr).print(input.obj)).toBe(want);
  });
});

describe('printerColumnCell', () => {
  const now = new Date('2024-05-01T13:12:00Z');
  const cell = (expr: string, type: string) => printerColumnCell(compileJSONPath(expr).evaluate(hc), type, now);
  it.each<{ name: string; input: { expr: string; type: string }; want: unknown }>([
    { name: 'string', input: { expr: '.status.conditions[?(@.type=="Available")].status', type: 'string' }, want: 'True' },
    { name: 'string of a number', input: { expr: '.spec.replicas', type: 'string' }, want: '3' },
    { name: 'string of an object is JSON', input: { expr: '.spec.platform', type: 'string' }, want: '{"type":"KubeVirt"}' },
    { name: 'string of null', input: { expr: '.spec.note', type: 'string' }, want: '<no value>' },
    { name: 'only the first result counts', input: { expr: '.spec.services[*].service', type: 'string' }, want: 'APIServer' },
    { name: 'no result', input: { expr: '.status.missing', type: 'string' }, want: null },
    { name: 'integer', input: { expr: '.spec.replicas', type: 'integer' }, want: 3 },
    { name: 'integer from float truncates', input: { expr: '.spec.ratio', type: 'integer' }, want: 0 },
    { name: 'integer from string is null', input: { expr: '.metadata.name', type: 'integer' }, want: null },
    { name: 'number', input: { expr: '.spec.ratio', type: 'number' }, want: 0.75 },
    { name: 'boolean', input: { expr: '.spec.paused', type: 'boolean' }, want: false },
    { name: 'boolean from string is null', input: { expr: '.metadata.name', type: 'boolean' }, want: null },
    { name: 'date renders an age', input: { expr: '.metadata.creationTimestamp', type: 'date' }, want: '3h12m' },
    { name: 'date unparsable', input: { expr: '.metadata.name', type: 'date' }, want: '<invalid>' },
    { name: 'date of a number is null', input: { expr: '.spec.replicas', type: 'date' }, want: null },
    { name: 'null for non-string types', input: { expr: '.spec.note', type: 'integer' }, want: null },
  ])('$name', ({ input, want }) => {
    expect(cell(input.expr, input.type)).toEqual(want);
  });

  it.each([
    { name: 'empty date is unknown', input: '', want: '<unknown>' },
    { name: 'offset date', input: '2024-05-01T15:10:00+02:00', want: '2m' },
    { name: 'future beyond skew', input: '2024-05-01T13:12:05Z', want: '<invalid>' },
  ])('date $name', ({ input, want }) => {
    expect(printerColumnCell([input], 'date', now)).toBe(want);
  });
});

describe('humanDuration', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  it.each([
    { name: 'now', input: 0, want: '0s' },
    { name: '1s in the future (skew)', input: -1500, want: '0s' },
    { name: '2s in the future', input: -2 * s, want: '<invalid>' },
    { name: 'seconds', input: 45 * s, want: '45s' },
    { name: 'up to 2 minutes in seconds', input: 119 * s, want: '119s' },
    { name: '2 minutes', input: 2 * m, want: '2m' },
    { name: 'minutes and seconds', input: 5 * m + 12 * s, want: '5m12s' },
    { name: 'ten minutes drops seconds', input: 10 * m + 5 * s, want: '10m' },
    { name: 'under 3 hours in minutes', input: 179 * m, want: '179m' },
    { name: '3 hours', input: 3 * h, want: '3h' },
    { name: 'hours and minutes', input: 3 * h + 12 * m, want: '3h12m' },
    { name: '8 hours drops minutes', input: 8 * h + 30 * m, want: '8h' },
    { name: 'under 2 days in hours', input: 47 * h, want: '47h' },
    { name: '2 days', input: 2 * d, want: '2d' },
    { name: 'days and hours', input: 2 * d + 3 * h, want: '2d3h' },
    { name: '8 days drops hours', input: 8 * d + 5 * h, want: '8d' },
    { name: 'under 2 years in days', input: 729 * d, want: '729d' },
    { name: '2 years', input: 730 * d, want: '2y' },
    { name: 'years and days', input: 760 * d, want: '2y30d' },
    { name: '8 years', input: 8 * 365 * d + 40 * d, want: '8y' },
  ])('$name', ({ input, want }) => {
    expect(humanDuration(input)).toBe(want);
  });
});

describe('parseRFC3339', () => {
  it.each([
    { name: 'UTC', input: '2024-05-01T10:00:00Z', want: Date.UTC(2024, 4, 1, 10) },
    { name: 'fraction', input: '2024-05-01T10:00:00.250Z', want: Date.UTC(2024, 4, 1, 10, 0, 0, 250) },
    { name: 'offset', input: '2024-05-01T12:00:00+02:00', want: Date.UTC(2024, 4, 1, 10) },
    { name: 'lower-case t is not RFC 3339 for Go', input: '2024-05-01t10:00:00Z', want: undefined },
    { name: 'date only', input: '2024-05-01', want: undefined },
    { name: 'bad day', input: '2024-02-30T00:00:00Z', want: undefined },
  ])('$name', ({ input, want }) => {
    expect(parseRFC3339(input)).toBe(want);
  });
});
