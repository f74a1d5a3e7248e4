import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { configmaps } from './configmaps.js';
import { secrets } from './secrets.js';
import { base64ErrorOffset, isStdBase64 } from '../schema/formats.js';
import type { StrategyContext } from '../types.js';

const ctx: StrategyContext = { fieldValidation: 'Strict', warnings: [], now: new Date() };
const hello = Buffer.from('hello').toString('base64'); // aGVsbG8=

describe('base64 values of Secrets and ConfigMaps, as Go decodes them', () => {
  it.each(['', 'aGVsbG8=', 'aGVsbG8=\n', 'aGVs\nbG8=', 'aGVsbG8=\r\n', 'aGVsbA==\n', 'YWJj'])('takes %j', (v) => {
    expect(isStdBase64(v)).toBe(true);
  });

  it.each(['aGVsbG8', 'a', 'aGVsbG8==', 'aGV sbG8=', 'aGVsbG8=x', '@@@@'])('refuses %j', (v) => {
    expect(isStdBase64(v)).toBe(false);
  });

  it.each([
    ['aGVsbG8', 4], // a final group cut short: where it starts
    ['a', 0],
    ['aGVs\nbG8', 5],
    ['aGVsbG8==', 8], // trailing garbage after the padding
    ['aGV sbG8=', 3], // a character outside the alphabet
    ['aGVsbG8=x', 8],
    ['@@@@', 0],
    ['aGVsbA=x', 6], // "=" then not "=": the first "="
    ['aGVsbA=', 7], // "==" cut short: the end
    ['aG=', 3], // a group of 2 needs "==": the end
    ['a===', 1],
  ] as const)('%j: Go stops at input byte %i', (v, at) => {
    expect(base64ErrorOffset(v)).toBe(at);
  });

  it.each(['', 'aGVsbG8=', 'aGVs\nbG8=\n', 'YWJj'])('%j decodes: no offset', (v) => {
    expect(base64ErrorOffset(v)).toBeUndefined();
  });

  it('a Secret from a kustomize secretGenerator (wrapped, ending in "=\\n") is valid and served without the line breaks', () => {
    const long = Buffer.from('x'.repeat(100)).toString('base64');
    const wrapped = `${long.slice(0, 76)}\n${long.slice(76)}\n`;
    expect(long.endsWith('=')).toBe(true);
    const s = { metadata: { name: 's', namespace: 'ns' }, data: { kubeconfig: wrapped, short: `${hello}\n` } } as KubeObject;
    secrets.strategy.prepareForCreate(s, ctx);
    expect(secrets.strategy.validate(s, ctx)).toEqual([]);
    expect(s.data).toEqual({ kubeconfig: long, short: hello });
  });

  it('refuses a Secret value that is not base64, redacting it', () => {
    const s = { metadata: { name: 's', namespace: 'ns' }, data: { a: 'aGVsbG8' } } as KubeObject;
    secrets.strategy.prepareForCreate(s, ctx);
    const errs = secrets.strategy.validate(s, ctx);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ field: 'data[a]', detail: 'must be a base64 encoded string', badValue: '<secret contents redacted>' });
  });

  it('serves padded values with their unused bits zeroed, as Go re-encodes the decoded bytes', () => {
    const s = { metadata: { name: 's', namespace: 'ns' }, data: { a: 'YR==', b: 'YWJ=\n', c: hello } } as KubeObject;
    secrets.strategy.prepareForCreate(s, ctx);
    expect(secrets.strategy.validate(s, ctx)).toEqual([]);
    expect(s.data).toEqual({ a: 'YQ==', b: 'YWI=', c: hello });
  });

  it('ConfigMap binaryData with line breaks is valid and served without them', () => {
    const c = { metadata: { name: 'c', namespace: 'ns' }, binaryData: { b: `aGVs\nbG8=\n` } } as KubeObject;
    configmaps.strategy.prepareForCreate(c, ctx);
    expect(configmaps.strategy.validate(c, ctx)).toEqual([]);
    expect(c.binaryData).toEqual({ b: hello });
  });
});
