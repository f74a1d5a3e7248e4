import { describe, expect, it } from 'vitest';
import { goFloat } from './go-float.js';

// Each `want` is what Go's fmt.Sprint(float64(input)) prints.
describe('goFloat', () => {
  it.each([
    { name: 'integral', input: 3, want: '3' },
    { name: 'fraction', input: 1.5, want: '1.5' },
    { name: 'below 1e6 stays decimal', input: 999999, want: '999999' },
    { name: '1e6 switches to %e', input: 1e6, want: '1e+06' },
    { name: 'shortest digits in %e', input: 1000000.5, want: '1.0000005e+06' },
    { name: '1e-4 stays decimal', input: 0.0001, want: '0.0001' },
    { name: 'below 1e-4 switches to %e', input: 0.00001, want: '1e-05' },
    { name: 'three-digit exponent', input: 1e100, want: '1e+100' },
    { name: 'negative', input: -2.5e7, want: '-2.5e+07' },
    { name: 'zero', input: 0, want: '0' },
    { name: 'negative zero', input: -0, want: '-0' },
    { name: 'NaN', input: Number.NaN, want: 'NaN' },
    { name: '+Inf', input: Number.POSITIVE_INFINITY, want: '+Inf' },
    { name: '-Inf', input: Number.NEGATIVE_INFINITY, want: '-Inf' },
  ])('$name', ({ input, want }) => {
    expect(goFloat(input)).toBe(want);
  });
});
