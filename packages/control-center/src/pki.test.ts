/**
 * The control center's PKI on disk: the CA (which kubeconfigs and replicas trust) is generated
 * only when both halves are missing and never replaced, a damaged or unmatched half stops the
 * start naming the file; the serving certificate is issued again when it is missing, damaged,
 * not its key's or not the CA's.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureServingCerts } from './pki.js';

describe('ensureServingCerts', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'hcc-pki-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  /** A fresh pki dir with a CA and serving certificate generated in it. */
  const fresh = async () => {
    const dir = path.join(root, `p${n++}`);
    return { dir, certs: await ensureServingCerts(dir), f: (name: string) => path.join(dir, name) };
  };
  const valid = (certs: { ca: string; cert: string; key: string }) => {
    const cert = new X509Certificate(certs.cert);
    return cert.verify(new X509Certificate(certs.ca).publicKey) && cert.checkPrivateKey(createPrivateKey(certs.key));
  };

  it('generates the CA and serving certificate once, then reads them', async () => {
    const { dir, certs } = await fresh();
    expect(valid(certs)).toBe(true);
    expect(await ensureServingCerts(dir)).toEqual(certs);
  });

  it('stops on a missing half, a damaged file or a key that is not the CA\'s, naming the file, and replaces nothing', async () => {
    const { dir, f } = await fresh();
    const ca = readFileSync(f('ca.crt'), 'utf8');
    rmSync(f('ca.key'));
    await expect(ensureServingCerts(dir)).rejects.toThrow(`${f('ca.key')} is missing while ${f('ca.crt')} is there: restore it from a backup (or another replica), or remove ca.crt and ca.key both`);
    expect(readFileSync(f('ca.crt'), 'utf8')).toBe(ca);

    const other = await fresh();
    copyFileSync(other.f('ca.key'), f('ca.key'));
    await expect(ensureServingCerts(dir)).rejects.toThrow(`${f('ca.key')} is not the key of ${f('ca.crt')}`);
    writeFileSync(f('ca.crt'), '');
    await expect(ensureServingCerts(dir)).rejects.toThrow(`${f('ca.crt')} is not a certificate (`);
    // A serving pair copied in as the CA: no CA.
    copyFileSync(other.f('server.crt'), f('ca.crt'));
    copyFileSync(other.f('server.key'), f('ca.key'));
    await expect(ensureServingCerts(dir)).rejects.toThrow(`${f('ca.crt')} is not a CA certificate (no basicConstraints CA:TRUE; CN=hcc-control-center)`);
    writeFileSync(f('ca.crt'), ca);
    writeFileSync(f('ca.key'), 'not a key');
    await expect(ensureServingCerts(dir)).rejects.toThrow(`${f('ca.key')} is not a private key (`);
  });

  it('issues the serving certificate again when it is empty, not its key\'s or another CA\'s, keeping the CA', async () => {
    for (const damage of ['empty key', 'empty cert', 'another key', 'another CA'] as const) {
      const { dir, f, certs } = await fresh();
      const other = await fresh();
      if (damage === 'empty key') writeFileSync(f('server.key'), '');
      if (damage === 'empty cert') writeFileSync(f('server.crt'), '');
      if (damage === 'another key') copyFileSync(other.f('server.key'), f('server.key'));
      if (damage === 'another CA') {
        copyFileSync(other.f('server.key'), f('server.key'));
        copyFileSync(other.f('server.crt'), f('server.crt'));
      }
      const again = await ensureServingCerts(dir);
      expect(again.ca, damage).toBe(certs.ca);
      expect(valid(again), damage).toBe(true);
      expect(readFileSync(f('server.crt'), 'utf8'), damage).toBe(again.cert);
    }
  });

  it('issues the serving certificate again for a requested name it lacks, also one another name contains, and an IPv6 address', async () => {
    const { dir } = await fresh();
    const sans = async (extra: string[]) => new X509Certificate((await ensureServingCerts(dir, extra)).cert).subjectAltName ?? '';
    expect(await sans(['10.9.9.10', 'host.docker.internal'])).toMatch(/IP Address:10\.9\.9\.10\b.*DNS:host\.docker\.internal|DNS:host\.docker\.internal.*IP Address:10\.9\.9\.10\b/);
    // 10.9.9.1 is a prefix of 10.9.9.10 and `host` a part of host.docker.internal: neither is covered.
    const second = await sans(['10.9.9.1', 'host']);
    expect(second.split(', ')).toEqual(expect.arrayContaining(['IP Address:10.9.9.1', 'DNS:host']));
    const third = (await ensureServingCerts(dir, ['fd00::5'])).cert;
    expect(new X509Certificate(third).checkIP('fd00:0:0:0:0:0:0:5')).toBe('fd00:0:0:0:0:0:0:5');
    // Asked again for what it carries (another spelling of the address), it is kept.
    expect((await ensureServingCerts(dir, ['fd00:0::5'])).cert).toBe(third);
  });

  it('holds a zoned IPv6 address, an IPv4-mapped one and an internationalised name as clients check them, and keeps the certificate across starts', async () => {
    const { dir } = await fresh();
    const names = ['fe80::1%eth0', '::ffff:10.9.9.1', 'bücher.example'];
    const first = (await ensureServingCerts(dir, names)).cert;
    const x = new X509Certificate(first);
    expect(x.checkIP('fe80::1')).toBe('fe80::1');
    expect(x.checkIP('10.9.9.1')).toBe('10.9.9.1');
    expect(x.checkHost('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    // A second start with the same names: no error (a zoned address made node:crypto throw), no new certificate.
    expect((await ensureServingCerts(dir, names)).cert).toBe(first);
  });
});
