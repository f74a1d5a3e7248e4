import { describe, expect, it } from 'vitest';
import { deepCopyJSON, ownValue, setOwn } from './json.js';

describe('deepCopyJSON', () => {
  it.each([
    { name: 'scalars', input: [1, 'a', true, null, 0.5] },
    { name: 'nested objects and arrays', input: { a: { b: [1, { c: 'd' }], e: null }, f: [] } },
    { name: 'key order', input: { z: 1, a: 2, m: { y: 1, b: 2 } } },
  ])('copies $name equal and unshared', ({ input }) => {
    const out = deepCopyJSON(input);
    expect(out).toEqual(input);
    expect(JSON.stringify(out)).toBe(JSON.stringify(input));
    if (typeof input === 'object' && input !== null) expect(out).not.toBe(input);
  });

  it('shares nothing mutable with the original', () => {
    const input = { spec: { list: [{ x: 1 }] } };
    const out = deepCopyJSON(input);
    out.spec.list[0]!.x = 2;
    out.spec.list.push({ x: 3 });
    expect(input).toEqual({ spec: { list: [{ x: 1 }] } });
  });

  it('keeps an own __proto__ key as data, as JSON.parse does', () => {
    const input = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const out = deepCopyJSON(input);
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('copies non-JSON objects with structuredClone', () => {
    const d = new Date(0);
    const out = deepCopyJSON({ d });
    expect(out.d).toBeInstanceOf(Date);
    expect(out.d).not.toBe(d);
    expect(out.d.getTime()).toBe(0);
  });
});

describe('own-key helpers', () => {
  it('read inherited names (constructor, toString) as absent', () => {
    const o: Record<string, unknown> = { a: 1 };
    expect(ownValue(o, 'constructor')).toBeUndefined();
    expect(ownValue(o, 'toString')).toBeUndefined();
    expect(ownValue(o, 'a')).toBe(1);
    expect(ownValue(undefined, 'a')).toBeUndefined();
    expect(ownValue({ constructor: 'x' }, 'constructor')).toBe('x');
  });

  it('setOwn keeps __proto__ as a data property and leaves the prototype alone', () => {
    const o: Record<string, unknown> = {};
    setOwn(o, '__proto__', { polluted: true });
    setOwn(o, 'b', 2);
    expect(JSON.stringify(o)).toBe('{"__proto__":{"polluted":true},"b":2}');
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(ownValue(o, '__proto__')).toEqual({ polluted: true });
    setOwn(o, '__proto__', 'again');
    expect(JSON.stringify(o)).toBe('{"__proto__":"again","b":2}');
  });
});
