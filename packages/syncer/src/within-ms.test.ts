import { describe, expect, it } from 'vitest';
import { withinMs } from './syncer.js';

describe('withinMs', () => {
  it('passes through what settles in time', async () => {
    await expect(withinMs(Promise.resolve(7), 1000, 'late')).resolves.toBe(7);
    await expect(withinMs(Promise.reject(new Error('refused')), 1000, 'late')).rejects.toThrow('refused');
  });

  it('rejects with the message when time is up, and ignores what the promise does later', async () => {
    let fail!: (e: Error) => void;
    const hung = new Promise<number>((_, reject) => (fail = reject));
    await expect(withinMs(hung, 20, "the API did not answer within 0.02s")).rejects.toThrow('the API did not answer within 0.02s');
    fail(new Error('timed out after 30000 ms')); // no unhandled rejection
    await new Promise((r) => setTimeout(r, 10));
  });
});
