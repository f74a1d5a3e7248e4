import { describe, expect, it } from 'vitest';
import { withoutEmptySpec, withSpec } from './zero-spec.js';

describe('zero-value spec', () => {
  it('gives an object without spec an empty one, and leaves a spec alone', () => {
    expect(withSpec({ metadata: { name: 'a' } } as { metadata: object; spec?: unknown })).toEqual({ metadata: { name: 'a' }, spec: {} });
    const withOne = { spec: { clusterID: 'x' } };
    expect(withSpec(withOne)).toBe(withOne);
    expect(withOne.spec).toEqual({ clusterID: 'x' });
  });

  it('writes an empty spec back as none, and anything else as it is', () => {
    const empty = { metadata: { name: 'a', finalizers: ['f'] }, spec: {} };
    expect(withoutEmptySpec(empty)).toEqual({ metadata: { name: 'a', finalizers: ['f'] } });
    expect(empty.spec).toEqual({}); // the cached object is not changed
    const full = { spec: { release: { image: 'i' } } };
    expect(withoutEmptySpec(full)).toBe(full);
  });
});
