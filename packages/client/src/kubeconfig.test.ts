import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import selfsigned from 'selfsigned';
import { inClusterConnection, loadKubeconfig, tlsProblem, writeKubeconfig, type ClusterConnection } from './kubeconfig.js';
import { ConfigError } from './api-errors.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hcc-kubeconfig-'));
  mkdirSync(join(dir, 'certs'));
  writeFileSync(join(dir, 'certs', 'ca.pem'), 'CA FROM FILE');
  writeFileSync(join(dir, 'certs', 'client.pem'), 'CERT FROM FILE');
  writeFileSync(join(dir, 'certs', 'client-key.pem'), 'KEY FROM FILE');
  writeFileSync(join(dir, 'token'), 'file-token\n');
  writeFileSync(
    join(dir, 'config'),
    `apiVersion: v1
kind: Config
current-context: inline
clusters:
- name: inline-cluster
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: ${b64('CA INLINE')}
- name: file-cluster
  cluster:
    server: https://files.example:443
    certificate-authority: certs/ca.pem
- name: insecure-cluster
  cluster:
    server: http://127.0.0.1:8080
    insecure-skip-tls-verify: true
users:
- name: inline-user
  user:
    token: abc123
- name: cert-user
  user:
    client-certificate-data: ${b64('CERT INLINE')}
    client-key-data: ${b64('KEY INLINE')}
- name: file-user
  user:
    client-certificate: certs/client.pem
    client-key: ${join(dir, 'certs', 'client-key.pem')}
    tokenFile: token
contexts:
- name: inline
  context: { cluster: inline-cluster, user: inline-user, namespace: clusters }
- name: certs
  context: { cluster: inline-cluster, user: cert-user }
- name: files
  context: { cluster: file-cluster, user: file-user }
- name: insecure
  context: { cluster: insecure-cluster }
- name: broken
  context: { cluster: nowhere, user: inline-user }
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (c: ClusterConnection) => ({
  ...c,
  ca: c.ca?.toString(),
  cert: c.cert?.toString(),
  key: c.key?.toString(),
});

describe('loadKubeconfig', () => {
  it.each([
    { name: 'current-context, inline CA, token, namespace', input: undefined, want: { server: 'https://10.0.0.1:6443', ca: 'CA INLINE', token: 'abc123', namespace: 'clusters' } },
    { name: 'inline client certificate and key', input: 'certs', want: { server: 'https://10.0.0.1:6443', ca: 'CA INLINE', cert: 'CERT INLINE', key: 'KEY INLINE' } },
    { name: 'relative and absolute file paths, tokenFile', input: 'files', want: { server: 'https://files.example:443', ca: 'CA FROM FILE', cert: 'CERT FROM FILE', key: 'KEY FROM FILE', token: 'file-token' } },
    { name: 'insecure, no user', input: 'insecure', want: { server: 'http://127.0.0.1:8080', insecureSkipTLSVerify: true } },
  ])('$name', ({ input, want }) => {
    const got = text(loadKubeconfig(join(dir, 'config'), input));
    expect(Object.fromEntries(Object.entries(got).filter(([k, v]) => v !== undefined && k !== 'tokenFile'))).toEqual(want);
  });

  it('remembers the token file so a rotated token is re-read', () => {
    expect(loadKubeconfig(join(dir, 'config'), 'files').tokenFile).toBe(join(dir, 'token'));
  });

  it('reads in-cluster service-account credentials', () => {
    writeFileSync(join(dir, 'ca.crt'), 'IN CLUSTER CA');
    writeFileSync(join(dir, 'namespace'), 'hcc-system');
    const conn = inClusterConnection(dir, { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' });
    expect({ ...conn, ca: conn.ca?.toString() }).toEqual({ server: 'https://10.96.0.1:443', token: 'file-token', tokenFile: join(dir, 'token'), ca: 'IN CLUSTER CA', namespace: 'hcc-system' });
    expect(() => inClusterConnection(dir, {})).toThrow(/not running in a Kubernetes pod/);
  });

  it.each([
    { name: 'unknown context', input: 'nope', want: /no context named "nope"/ },
    { name: 'context naming a missing cluster', input: 'broken', want: /no cluster named "nowhere"/ },
  ])('throws for $name', ({ input, want }) => {
    expect(() => loadKubeconfig(join(dir, 'config'), input)).toThrow(want);
  });

  it('throws for a missing file', () => {
    expect(() => loadKubeconfig(join(dir, 'missing'))).toThrow(/missing does not exist \(start the control center first/);
  });

  it("reads YAML as client-go does (YAML 1.1): `insecure-skip-tls-verify: yes` skips verification, a quoted \"yes\" does not", () => {
    const config = (v: string) =>
      `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:6443\n    insecure-skip-tls-verify: ${v}\nusers:\n- name: u\n  user: {token: t}\n`;
    writeFileSync(join(dir, 'yes'), config('yes'));
    expect(loadKubeconfig(join(dir, 'yes')).insecureSkipTLSVerify).toBe(true);
    writeFileSync(join(dir, 'quoted'), config('"yes"'));
    expect(loadKubeconfig(join(dir, 'quoted')).insecureSkipTLSVerify).toBeUndefined();
  });

  it('names a placeholder nobody replaced (an empty file, or only comments)', () => {
    writeFileSync(join(dir, 'placeholder'), '# Replace with the kubeconfig of the hcc control center.\n');
    expect(() => loadKubeconfig(join(dir, 'placeholder'))).toThrow(`kubeconfig ${join(dir, 'placeholder')} is empty (it holds only the comment "Replace with the kubeconfig of the hcc control center.")`);
    writeFileSync(join(dir, 'empty'), '\n');
    expect(() => loadKubeconfig(join(dir, 'empty'))).toThrow(`kubeconfig ${join(dir, 'empty')} is empty`);
    writeFileSync(join(dir, 'scalar'), 'hello\n');
    expect(() => loadKubeconfig(join(dir, 'scalar'))).toThrow('not a YAML mapping');
  });

  it('a file that is not YAML: one line naming the file, the reason, line and column, never the line itself (it may hold a token)', () => {
    const file = join(dir, 'typo');
    writeFileSync(file, 'apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: TOPSECRET-TOKEN-0123456789abcdef: x\n');
    let err: unknown;
    try {
      loadKubeconfig(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ConfigError;
    expect(e.message).toBe(`kubeconfig ${file} is not valid YAML: Nested mappings are not allowed in compact mappings at line 6, column 12`);
    expect(e.cause).toBeUndefined();
    expect(`${e.message}${e.stack}`).not.toContain('TOPSECRET');
  });
});

describe('writeKubeconfig', () => {
  it('writes a 0600 file that loads back', () => {
    const path = join(dir, 'out', '.hcc', 'admin.kubeconfig');
    writeKubeconfig(path, { server: 'http://127.0.0.1:6443', token: 't0k', contextName: 'hcc', namespace: 'clusters', ca: Buffer.from('CA') });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(text(loadKubeconfig(path))).toEqual({ server: 'http://127.0.0.1:6443', token: 't0k', namespace: 'clusters', ca: 'CA', cert: undefined, key: undefined });
    writeKubeconfig(path, { server: 'http://127.0.0.1:7000', contextName: 'other' });
    expect(loadKubeconfig(path, 'other')).toEqual({ server: 'http://127.0.0.1:7000' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('quotes names a YAML 1.1 reader would take for booleans (a management cluster named "no"), so the file loads back', () => {
    const path = join(dir, 'out', 'no.kubeconfig');
    for (const name of ['no', 'on', 'y', 'yes', 'off']) {
      writeKubeconfig(path, { server: 'http://127.0.0.1:7000', contextName: name, namespace: 'n' });
      expect(readFileSync(path, 'utf8')).toContain(`current-context: "${name}"`);
      expect(loadKubeconfig(path, name)).toEqual({ server: 'http://127.0.0.1:7000', namespace: 'n' });
    }
  });
});

describe('tlsProblem', () => {
  it('finds what client-go refuses at load: a CA with no certificate, a broken one, half a client pair, a key that does not match', async () => {
    const one = await selfsigned.generate([{ name: 'commonName', value: 'a' }], { keyType: 'ec', algorithm: 'sha256' });
    const two = await selfsigned.generate([{ name: 'commonName', value: 'b' }], { keyType: 'ec', algorithm: 'sha256' });
    const pem = (s: string) => Buffer.from(s);
    const server = 'https://127.0.0.1:6443';
    expect(tlsProblem({ server, ca: pem(one.cert + two.cert), cert: pem(one.cert), key: pem(one.private) })).toBeUndefined();
    expect(tlsProblem({ server })).toBeUndefined();
    expect(tlsProblem({ server, ca: pem('garbage') })).toBe('certificate-authority data holds no PEM certificate (unable to load root certificates)');
    expect(tlsProblem({ server, ca: pem('-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n') })).toMatch(/^certificate-authority data holds a certificate that does not parse: /);
    expect(tlsProblem({ server, cert: pem(one.cert) })).toBe('client-certificate data without client-key data');
    expect(tlsProblem({ server, key: pem(one.private) })).toBe('client-key data without client-certificate data');
    expect(tlsProblem({ server, cert: pem(one.cert), key: pem(two.private) })).toMatch(/^client certificate and key do not load: .*key values mismatch/);
  });
});
