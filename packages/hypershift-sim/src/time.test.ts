import { describe, expect, it } from 'vitest';
import { formatTime, parseTime, remainingMs, startTime } from './time.js';

describe('time', () => {
  const t = Date.UTC(2024, 0, 1, 0, 0, 5, 678);
  it('formats with second precision', () => expect(formatTime(t)).toBe('2024-01-01T00:00:05Z'));
  it.each([
    { name: 'seconds precision stands for the end of that second', input: '2024-01-01T00:00:05Z', want: Date.UTC(2024, 0, 1, 0, 0, 5, 999) },
    { name: 'fractional seconds are taken as they are', input: '2024-01-01T00:00:05.250Z', want: Date.UTC(2024, 0, 1, 0, 0, 5, 250) },
    { name: 'garbage', input: 'soon', want: undefined },
    { name: 'missing', input: undefined, want: undefined },
  ])('startTime: $name', ({ input, want }) => expect(startTime(input)).toBe(want));
  it('parseTime reads the instant', () => expect(parseTime('2024-01-01T00:00:05Z')).toBe(Date.UTC(2024, 0, 1, 0, 0, 5)));
  it.each([
    { name: 'before the deadline', input: [1000, 500, 2000], want: 1500 },
    { name: 'after the deadline', input: [5000, 500, 2000], want: 0 },
    { name: 'no delay', input: [0, 999, 0], want: 0 },
  ])('remainingMs: $name', ({ input, want }) => expect(remainingMs(input[0]!, input[1]!, input[2]!)).toBe(want));
});
