/**
 * ControlCenterIDGuard: every confirmation rests on a read begun after it was asked for, reads
 * are shared by callers that arrive together, and a changed ID stops everything once.
 */
import { describe, expect, it } from 'vitest';
import { ControlCenterChangedError, ControlCenterIDGuard } from './control-center-id-guard.js';

/** A read the test answers by hand. */
function manualReads() {
  const pending: { resolve: (id: string) => void; reject: (err: Error) => void }[] = [];
  return {
    read: () => new Promise<string>((resolve, reject) => pending.push({ resolve, reject })),
    pending,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ControlCenterIDGuard', () => {
  it('confirms on a read begun after the call: callers during a read in flight share the next one', async () => {
    const r = manualReads();
    const guard = new ControlCenterIDGuard('id-a', r.read, () => {});
    const first = guard.confirm();
    expect(r.pending).toHaveLength(1);
    // Asked while the first read is in flight: that read may predate a change they must see.
    const second = guard.confirm();
    const third = guard.confirm();
    expect(r.pending).toHaveLength(1);
    r.pending[0]!.resolve('id-a');
    await first;
    await tick();
    expect(r.pending).toHaveLength(2);
    r.pending[1]!.resolve('id-a');
    await Promise.all([second, third]);
    expect(r.pending).toHaveLength(2);
  });

  it('refuses, and calls onChanged once, when the ID changed; every later call is refused at once', async () => {
    const r = manualReads();
    const changes: ControlCenterChangedError[] = [];
    const guard = new ControlCenterIDGuard('id-a', r.read, (e) => changes.push(e));
    const p = guard.confirm();
    r.pending[0]!.resolve('id-b');
    await expect(p).rejects.toBeInstanceOf(ControlCenterChangedError);
    await expect(guard.confirm()).rejects.toThrow(/the control center's ID changed from id-a to id-b/);
    expect(r.pending).toHaveLength(1);
    expect(changes.map((c) => [c.was, c.now])).toEqual([['id-a', 'id-b']]);
  });

  it('passes a failed read on to the caller (nothing deleted then; it retries) and reads again next time', async () => {
    const r = manualReads();
    const guard = new ControlCenterIDGuard('id-a', r.read, () => {});
    const p = guard.confirm();
    r.pending[0]!.reject(new Error('connect ECONNREFUSED'));
    await expect(p).rejects.toThrow('ECONNREFUSED');
    const q = guard.confirm();
    expect(r.pending).toHaveLength(2);
    r.pending[1]!.resolve('id-a');
    await expect(q).resolves.toBeUndefined();
  });
});

describe('ControlCenterIDGuard.settled', () => {
  it('resolves at once until a reconnect, then only on a read begun after it', async () => {
    const r = manualReads();
    const guard = new ControlCenterIDGuard('id-a', r.read, () => {});
    await guard.settled();
    expect(r.pending).toHaveLength(0);
    guard.suspect();
    const waiting = guard.settled();
    expect(r.pending).toHaveLength(1);
    r.pending[0]!.resolve('id-a');
    await waiting;
    await guard.settled();
    expect(r.pending).toHaveLength(1);
    // Another control center: refused, and for good.
    guard.suspect();
    const refused = guard.settled();
    r.pending[1]!.resolve('id-b');
    await expect(refused).rejects.toBeInstanceOf(ControlCenterChangedError);
    await expect(guard.settled()).rejects.toBeInstanceOf(ControlCenterChangedError);
  });
});
