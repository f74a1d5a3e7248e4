import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { AnnotationTolerations, parseTolerations, taintToleration, toleratesTaint, type Taint, type Toleration } from './taint-toleration.js';

const gpu: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
const soft: Taint = { key: 'maintenance', effect: 'PreferNoSchedule' };
const hcTol = (t: unknown) => hostedCluster({ annotations: { [AnnotationTolerations]: typeof t === 'string' ? t : JSON.stringify(t) } });

describe('toleratesTaint', () => {
  it.each<{ name: string; input: { t: Toleration; taint: Taint }; want: boolean }>([
    { name: 'Equal with the same value', input: { t: { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, taint: gpu }, want: true },
    { name: 'operator defaults to Equal', input: { t: { key: 'dedicated', value: 'gpu' }, taint: gpu }, want: true },
    { name: 'Equal with another value', input: { t: { key: 'dedicated', value: 'cpu' }, taint: gpu }, want: false },
    { name: 'Exists matches any value', input: { t: { key: 'dedicated', operator: 'Exists' }, taint: gpu }, want: true },
    { name: 'empty key with Exists matches every taint', input: { t: { operator: 'Exists' }, taint: gpu }, want: true },
    { name: 'another effect', input: { t: { key: 'dedicated', operator: 'Exists', effect: 'PreferNoSchedule' }, taint: gpu }, want: false },
    { name: 'another key', input: { t: { key: 'team', operator: 'Exists' }, taint: gpu }, want: false },
    { name: 'taint without value, Equal with empty value', input: { t: { key: 'maintenance', effect: 'PreferNoSchedule' }, taint: soft }, want: true },
  ])('$name', ({ input, want }) => {
    expect(toleratesTaint(input.t, input.taint)).toBe(want);
  });
});

describe('parseTolerations', () => {
  it.each([
    { name: 'valid list', input: '[{"key":"a","operator":"Exists"}]', want: '' },
    { name: 'empty list', input: '[]', want: '' },
    { name: 'not JSON', input: '[{', want: 'not JSON' },
    { name: 'not a list', input: '{"key":"a"}', want: 'must be a JSON list' },
    { name: 'bad operator', input: '[{"key":"a","operator":"In"}]', want: '[0].operator: must be Exists or Equal' },
    { name: 'empty key needs Exists', input: '[{"value":"x"}]', want: '[0].operator: must be Exists when key is empty' },
    { name: 'Exists with a value', input: '[{"key":"a","operator":"Exists","value":"x"}]', want: '[0].value: must be empty' },
    { name: 'bad effect', input: '[{"key":"a","operator":"Exists"},{"key":"b","effect":"Never"}]', want: '[1].effect' },
    { name: 'non-string value', input: '[{"key":"a","value":3}]', want: '[0].value: must be a string' },
  ])('$name', ({ input, want }) => {
    const r = parseTolerations(input);
    if (!want) expect(Array.isArray(r)).toBe(true);
    else expect((r as Error).message).toContain(want);
  });
});

describe('TaintToleration filter', () => {
  it.each([
    { name: 'untainted cluster', input: { hc: hostedCluster(), taints: [] as Taint[] }, want: [] },
    { name: 'NoSchedule taint, no tolerations', input: { hc: hostedCluster(), taints: [gpu] }, want: ['had untolerated taint {dedicated: gpu}'] },
    { name: 'NoSchedule taint tolerated', input: { hc: hcTol([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]), taints: [gpu] }, want: [] },
    { name: 'PreferNoSchedule does not filter', input: { hc: hostedCluster(), taints: [soft] }, want: [] },
    { name: 'taint without value', input: { hc: hostedCluster(), taints: [{ key: 'x', effect: 'NoSchedule' } as Taint] }, want: ['had untolerated taint {x: }'] },
    { name: 'invalid annotation', input: { hc: hcTol('nope'), taints: [] }, want: ['invalid tolerations annotation'] },
  ])('$name', ({ input, want }) => {
    expect(taintToleration.filter(input.hc, info('a', { taints: input.taints })).reasons).toEqual(want);
  });
});

describe('TaintToleration score', () => {
  it.each([
    { name: 'untolerated PreferNoSchedule taints count', input: { hc: hostedCluster(), taints: [[], [soft], [soft, { key: 'b', effect: 'PreferNoSchedule' } as Taint]] }, want: [100, 50, 0] },
    { name: 'tolerated ones do not', input: { hc: hcTol([{ key: 'maintenance', operator: 'Exists' }]), taints: [[], [soft]] }, want: [100, 100] },
    { name: 'NoSchedule taints do not count', input: { hc: hcTol([{ operator: 'Exists', effect: 'NoSchedule' }]), taints: [[], [gpu]] }, want: [100, 100] },
  ])('$name', ({ input, want }) => {
    const raw = input.taints.map((t, i) => taintToleration.score(input.hc, info(`c${i}`, { taints: t })));
    expect(taintToleration.normalizeScore(raw)).toEqual(want);
  });
});
