/**
 * Secret types are validated as upstream's ValidateSecret does, so that what the control center
 * accepts a management cluster's kube-apiserver also takes when the syncer copies it there: the
 * docker types hold a JSON object (and the error never quotes the value), basic-auth a username
 * or a password, ssh-auth a non-empty key, a service-account-token its ServiceAccount's name.
 */
import { describe, expect, it } from 'vitest';
import { request, useTestControlCenter } from '../../testing/in-process.js';

const SECRETS = '/api/v1/namespaces/default/secrets';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (name: string, type: string, data: Record<string, string>, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  type,
  data,
});

describe('Secret types', () => {
  const cc = useTestControlCenter();

  it.each([
    ['kubernetes.io/dockerconfigjson', '.dockerconfigjson', 'notjson', 'the value is not valid JSON'],
    ['kubernetes.io/dockerconfigjson', '.dockerconfigjson', '[1,2]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['kubernetes.io/dockerconfigjson', '.dockerconfigjson', '"str"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['kubernetes.io/dockercfg', '.dockercfg', 'notjson', 'the value is not valid JSON'],
    ['kubernetes.io/dockercfg', '.dockercfg', '7', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
  ])('refuses a %s whose %s is %s, without quoting it', async (type, key, value, why) => {
    const r = await request(cc(), 'POST', SECRETS, secret('bad', type, { [key]: b64(value) }));
    expect([r.code, r.body.reason]).toEqual([422, 'Invalid']);
    expect(r.body.message).toBe(`Secret "bad" is invalid: data[${key}]: Invalid value: "<secret contents redacted>": ${why}`);
    expect(r.body.message).not.toContain(value);
    expect((await request(cc(), 'GET', `${SECRETS}/bad`)).code).toBe(404);
  });

  it('accepts docker configs that are JSON objects', async () => {
    for (const [name, type, key] of [['pull', 'kubernetes.io/dockerconfigjson', '.dockerconfigjson'], ['legacy', 'kubernetes.io/dockercfg', '.dockercfg']] as const) {
      const r = await request(cc(), 'POST', SECRETS, secret(name, type, { [key]: b64('{"auths":{"quay.io":{"auth":"eDp5"}}}') }));
      expect(r.code, JSON.stringify(r.body)).toBe(201);
    }
  });

  it('asks a basic-auth Secret for a username or a password, an ssh-auth one for a key', async () => {
    const none = await request(cc(), 'POST', SECRETS, secret('ba', 'kubernetes.io/basic-auth', {}));
    expect(none.code).toBe(422);
    expect(none.body.message).toBe('Secret "ba" is invalid: [data[username]: Required value, data[password]: Required value]');
    expect((await request(cc(), 'POST', SECRETS, secret('ba', 'kubernetes.io/basic-auth', { password: b64('p') }))).code).toBe(201);
    const empty = await request(cc(), 'POST', SECRETS, secret('ssh', 'kubernetes.io/ssh-auth', { 'ssh-privatekey': '' }));
    expect(empty.code).toBe(422);
    expect(empty.body.message).toContain('data[ssh-privatekey]: Required value');
  });

  it("asks a service-account-token Secret for its ServiceAccount's name", async () => {
    const r = await request(cc(), 'POST', SECRETS, secret('sat', 'kubernetes.io/service-account-token', {}));
    expect(r.code).toBe(422);
    expect(r.body.message).toBe('Secret "sat" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value');
    expect((await request(cc(), 'POST', SECRETS, secret('sat', 'kubernetes.io/service-account-token', {}, { 'kubernetes.io/service-account.name': 'default' }))).code).toBe(201);
  });

  it('says a changed type is immutable before what the new type asks for, as ValidateSecretUpdate orders them', async () => {
    expect((await request(cc(), 'POST', SECRETS, secret('typed', 'Opaque', { a: b64('1') }))).code).toBe(201);
    const r = await request(cc(), 'PATCH', `${SECRETS}/typed`, { type: 'kubernetes.io/tls' }, { contentType: 'application/merge-patch+json' });
    expect(r.code).toBe(422);
    expect(r.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['type', 'data[tls.crt]', 'data[tls.key]']);
  });
});
