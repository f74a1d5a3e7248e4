import { describe, expect, it } from 'vitest';
import { etcdErrorMessage } from './error-message.js';

describe('etcdErrorMessage', () => {
  it("drops grpc-js's empty Resolution note, wherever it ends a message or a parenthesis", () => {
    const raw = '14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379 (2026-12-06T13:00:00.000Z). Resolution note: ';
    expect(etcdErrorMessage(new Error(raw))).toBe('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379 (2026-12-06T13:00:00.000Z).');
    expect(etcdErrorMessage(new Error('a (then, after 7 more tries: b. Resolution note: ); c'))).toBe('a (then, after 7 more tries: b.); c');
    // A note with content, and other errors, are kept as they are.
    expect(etcdErrorMessage(new Error('x. Resolution note: dns failed'))).toBe('x. Resolution note: dns failed');
    expect(etcdErrorMessage('plain')).toBe('plain');
  });
});
