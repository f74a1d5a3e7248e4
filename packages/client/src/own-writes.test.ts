import { describe, expect, it } from 'vitest';
import type { KubeObject } from './types.js';
import { OwnWrites } from './own-writes.js';

const obj = (rv: string, uid = 'u1'): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'a', namespace: 'n', uid, resourceVersion: rv } });
const key = 'HostedCluster/n/a';

describe('OwnWrites', () => {
  it('serves what the last own write returned while the informer still shows a version it replaced', () => {
    const w = new OwnWrites();
    expect(w.freshest(key, obj('5'))?.metadata.resourceVersion).toBe('5');
    w.record(key, obj('5'), obj('6'));
    expect(w.freshest(key, obj('5'))?.metadata.resourceVersion).toBe('6');
    // A second write built on 6 keeps 5 superseded too.
    w.record(key, obj('6'), obj('7'));
    expect(w.freshest(key, obj('5'))?.metadata.resourceVersion).toBe('7');
    expect(w.freshest(key, obj('6'))?.metadata.resourceVersion).toBe('7');
    // The informer caught up: the memory is dropped.
    expect(w.freshest(key, obj('7'))?.metadata.resourceVersion).toBe('7');
    expect(w.has(key)).toBe(false);
  });

  it('yields to a version nobody here wrote (someone else wrote since) and to a new object of the same name', () => {
    const w = new OwnWrites();
    w.record(key, obj('5'), obj('6'));
    expect(w.freshest(key, obj('9'))?.metadata.resourceVersion).toBe('9');
    expect(w.has(key)).toBe(false);
    w.record(key, obj('5'), obj('6'));
    expect(w.freshest(key, obj('5', 'u2'))?.metadata.uid).toBe('u2');
    expect(w.has(key)).toBe(false);
  });

  it('forgets a key whose object is gone', () => {
    const w = new OwnWrites();
    w.record(key, obj('5'), obj('6'));
    expect(w.freshest(key, undefined)).toBeUndefined();
    expect(w.size).toBe(0);
  });

  it('never supersedes a version a write returned, so two racing writes cannot pin an old object', () => {
    const w = new OwnWrites();
    // Two writes from the same base (an unguarded one and a guarded one) returned 7, then 6.
    w.record(key, obj('5'), obj('7'));
    w.record(key, obj('5'), obj('6'));
    // The informer shows 7: it is not superseded, so the informer wins and the memory goes.
    expect(w.freshest(key, obj('7'))?.metadata.resourceVersion).toBe('7');
    expect(w.has(key)).toBe(false);
  });
});
