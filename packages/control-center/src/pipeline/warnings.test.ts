import { describe, expect, it } from 'vitest';
import { warningsToSend, WarningTotalRunes } from './warnings.js';

describe('warningsToSend (kube-apiserver warning recorder)', () => {
  it('truncates as upstream TestTruncation does (limits 25 total, 5 per item)', () => {
    // The same sequence as staging/src/k8s.io/apiserver/pkg/endpoints/filters/warning_test.go.
    const added = ['aaaaaaaaaa', 'aaaaaaaaaa', 'bb', 'ccc', 'Iñtërnâtiô'];
    expect(warningsToSend(added, 25, 5)).toEqual(['aaaaaaaaaa', 'bb', 'ccc', 'Iñtërnâtiô']);
    expect(warningsToSend([...added, 'e', 'ffffffffff', 'ffffffffff', 'gggggggggg', 'h'], 25, 5)).toEqual(['aaaaa', 'bb', 'ccc', 'Iñtër', 'e', 'fffff', 'ggggg']);
  });

  it('drops empty and repeated texts', () => {
    expect(warningsToSend(['a', '', 'b', 'a'])).toEqual(['a', 'b']);
  });

  it('keeps 150,000 warnings to a few kilobytes, without overflowing the stack', () => {
    const many = Array.from({ length: 150_000 }, (_, i) => `unknown field "spec.f${i}"`);
    const out = warningsToSend(many);
    const runes = out.reduce((n, w) => n + Array.from(w).length, 0);
    expect(runes).toBeLessThanOrEqual(WarningTotalRunes + 256);
    expect(out[0]).toBe('unknown field "spec.f0"');
    expect(out.length).toBeGreaterThan(100);
  });

  it('cuts on code points, never inside a surrogate pair', () => {
    const emoji = '😀'.repeat(300);
    const out = warningsToSend(['x'.repeat(WarningTotalRunes), emoji]);
    expect(out[1]).toBe('😀'.repeat(256));
  });
});
