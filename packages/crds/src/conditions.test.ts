import { describe, expect, it } from 'vitest';
import { rfc3339, setCondition } from './conditions.js';

describe('rfc3339', () => {
  it('writes metav1.Time: UTC, second precision, the fraction dropped (not rounded)', () => {
    expect(rfc3339(new Date('2026-12-05T19:20:12.999Z'))).toBe('2026-12-05T19:20:12Z');
    expect(rfc3339(new Date('2026-12-05T19:20:13.000Z'))).toBe('2026-12-05T19:20:13Z');
    expect(rfc3339(new Date(0))).toBe('1970-01-01T00:00:00Z');
    expect(rfc3339(new Date(-1))).toBe('1969-12-31T23:59:59Z');
  });

  it('never answers with the text of another second, whatever order the times come in', () => {
    const base = Date.parse('2026-12-05T19:20:12Z');
    const times = [0, 999, 1000, 1, 86_400_000, 999, -1, -1000, 1000];
    for (const dt of times) expect(rfc3339(new Date(base + dt))).toBe(new Date(base + dt).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  });

  it('throws for an invalid Date, as toISOString does', () => {
    expect(() => rfc3339(new Date(NaN))).toThrow(RangeError);
  });
});

describe('setCondition', () => {
  it('stamps lastTransitionTime when a condition is new or flips, and keeps it otherwise', () => {
    const t1 = new Date('2026-12-05T10:00:00.500Z');
    const t2 = new Date('2026-12-05T11:00:00Z');
    const a = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'A', message: '' }, t1);
    expect(a[0]!.lastTransitionTime).toBe('2026-12-05T10:00:00Z');
    const b = setCondition(a, { type: 'Ready', status: 'False', reason: 'B', message: '' }, t2);
    expect(b[0]).toMatchObject({ reason: 'B', lastTransitionTime: '2026-12-05T10:00:00Z' });
    const c = setCondition(b, { type: 'Ready', status: 'True', reason: 'C', message: '' }, t2);
    expect(c[0]!.lastTransitionTime).toBe('2026-12-05T11:00:00Z');
  });
});
