import { describe, expect, it } from 'vitest';
import { mergePatch } from './merge-patch.js';

// The examples of RFC 7386 section 3.
describe('mergePatch', () => {
  it.each([
    { name: 'replace scalar', input: [{ a: 'b' }, { a: 'c' }], want: { a: 'c' } },
    { name: 'add key', input: [{ a: 'b' }, { b: 'c' }], want: { a: 'b', b: 'c' } },
    { name: 'null deletes', input: [{ a: 'b' }, { a: null }], want: {} },
    { name: 'nested delete', input: [{ a: 'b', b: 'c' }, { a: null }], want: { b: 'c' } },
    { name: 'list replaces', input: [{ a: ['b'] }, { a: 'c' }], want: { a: 'c' } },
    { name: 'scalar to list', input: [{ a: 'c' }, { a: ['b'] }], want: { a: ['b'] } },
    { name: 'deep merge', input: [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }], want: { a: { b: 'd' } } },
    { name: 'list of objects replaces', input: [{ a: [{ b: 'c' }] }, { a: [1] }], want: { a: [1] } },
    { name: 'non-object patch replaces', input: [{ a: 'b' }, ['c']], want: ['c'] },
    { name: 'object into null', input: [null, { a: { bb: { ccc: null } } }], want: { a: { bb: {} } } },
  ])('$name', ({ input, want }) => {
    const [target, patch] = input;
    const before = JSON.stringify(target);
    expect(mergePatch(target, patch)).toEqual(want);
    expect(JSON.stringify(target)).toBe(before);
  });
});
