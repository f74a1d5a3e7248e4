import { describe, expect, it } from 'vitest';
import { errorMessage } from './logging.js';

describe('errorMessage', () => {
  it.each([
    { name: 'a cause the message already quotes is not repeated', input: new Error('GET /api: unable to verify the first certificate', { cause: new Error('unable to verify the first certificate') }), want: 'GET /api: unable to verify the first certificate' },
    { name: 'a cause it does not quote is appended', input: new Error('registering failed', { cause: new Error('ECONNREFUSED') }), want: 'registering failed: ECONNREFUSED' },
    { name: 'a chain, each new cause once', input: new Error('a', { cause: new Error('b', { cause: new Error('a') }) }), want: 'a: b' },
    { name: 'no cause', input: new Error('plain'), want: 'plain' },
  ])('$name', ({ input, want }) => {
    expect(errorMessage(input)).toBe(want);
  });
});
