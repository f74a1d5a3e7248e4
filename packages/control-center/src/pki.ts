/**
 * Serving certificates of the control center: on first start a private CA and a serving
 * certificate signed by it are generated into `<dataDir>/pki/` (ECDSA P-256, 10 years for the
 * CA, 1 year for the serving certificate, renewed at start when it expires within 30 days or
 * lacks a requested name); the CA goes into the admin kubeconfig as
 * `certificate-authority-data`, as kubeadm does for kube-apiserver.
 * @see https://kubernetes.io/docs/setup/best-practices/certificates/
 */
import { ensureDir, writeFileAtomic } from '@hcc/client';
import { existsSync, readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { domainToASCII } from 'node:url';

/** PEM material for an HTTPS server and its clients. */
export interface ServingCerts {
  /** PEM CA certificate clients trust. */
  ca: string;
  /** PEM serving certificate. */
  cert: string;
  /** PEM private key of the serving certificate. */
  key: string;
}

const DAY_MS = 86_400_000;

/**
 * Names every serving certificate carries, plus the extra ones asked for, each as a certificate
 * holds it: an IPv6 address without its zone (`fe80::1%eth0` → `fe80::1`: a SAN has none, and TLS
 * clients check the address alone), an IPv4-mapped IPv6 address as its IPv4 address, a DNS name in
 * its ASCII (punycode) form, as clients compare it (`bücher.example` → `xn--bcher-kva.example`).
 */
export function servingNames(extra: string[] = []): string[] {
  return [...new Set(['localhost', '127.0.0.1', '::1', hostname(), ...extra].filter(Boolean).map(certName))];
}

function certName(n: string): string {
  if (n.includes(':')) {
    const ip = n.replace(/%.*$/, '');
    const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(ip);
    return mapped ? mapped[1]! : ip;
  }
  if (isIP(n)) return n;
  return domainToASCII(n) || n;
}

function isIP(s: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(s) || s.includes(':');
}

/**
 * Whether a serving certificate is valid for 30 more days and carries each name as a subject
 * alternative name of its own: an IP address (IPv4 or IPv6, in any spelling) as that address, a
 * DNS name exactly (case-insensitive, no wildcard matching), so `10.9.9.1` is not taken as covered
 * by `10.9.9.10`, nor `host` by `host.docker.internal`.
 */
function covers(certPem: string, names: string[]): boolean {
  const c = new X509Certificate(certPem);
  if (Date.parse(c.validTo) - Date.now() < 30 * DAY_MS) return false;
  return names.every((n) => {
    try {
      return isIP(n) ? c.checkIP(n) !== undefined : c.checkHost(n, { subject: 'never', wildcards: false }) !== undefined;
    } catch {
      return false; // a name node:crypto cannot check: issue the certificate again rather than fail the start
    }
  });
}

/** A PEM file read and parsed, or the reason it cannot be (empty, not PEM, unreadable). */
function readPEM<T>(file: string, parse: (pem: string) => T): { pem: string; parsed: T } | { error: string } {
  try {
    const pem = readFileSync(file, 'utf8');
    return { pem, parsed: parse(pem) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Whether a serving certificate and key are a pair, issued by the CA. */
function issuedBy(cert: X509Certificate, key: KeyObject, ca: X509Certificate): boolean {
  try {
    return cert.checkPrivateKey(key) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}

/**
 * Loads the CA and serving certificate from dir, generating what is missing or stale.
 *
 * The CA is a pair that replicas and every kubeconfig trust, so it is generated only when both
 * halves are missing; one half missing, a file that does not parse, a certificate that is no CA's
 * or a key that is not the certificate's stops the start, naming the file (it is never replaced: what trusts it would
 * break). The serving certificate is the CA's to issue again: one missing, unreadable, not
 * matching its key, not issued by the CA, expiring within 30 days or lacking a name is
 * generated anew. Files are written whole (a temporary file, then a rename).
 * @param dir - directory holding ca.crt, ca.key, server.crt, server.key (created when missing)
 * @param extraNames - further DNS names or IP addresses the serving certificate must carry
 * @throws Error naming the CA file that is missing, damaged or not of the pair
 */
export async function ensureServingCerts(dir: string, extraNames: string[] = []): Promise<ServingCerts> {
  ensureDir(dir, 0o700);
  const f = (n: string) => path.join(dir, n);
  const names = servingNames(extraNames);
  // The certificate library (100–200 ms to load) is loaded only when something must be generated.
  const generate = async (...args: Parameters<typeof import('selfsigned').generate>) => (await import('selfsigned')).default.generate(...args);
  let ca: string;
  let caKey: string;
  let caCert: X509Certificate;
  const [hasCert, hasKey] = [existsSync(f('ca.crt')), existsSync(f('ca.key'))];
  const restore = `restore it from a backup (or another replica), or remove ca.crt and ca.key both to have a new CA made (every kubeconfig and replica must then trust the new ca.crt)`;
  if (hasCert !== hasKey) {
    throw new Error(`${f(hasCert ? 'ca.key' : 'ca.crt')} is missing while ${f(hasCert ? 'ca.crt' : 'ca.key')} is there: ${restore}`);
  }
  if (hasCert) {
    const cert = readPEM(f('ca.crt'), (pem) => new X509Certificate(pem));
    if ('error' in cert) throw new Error(`${f('ca.crt')} is not a certificate (${cert.error}): ${restore}`);
    if (!cert.parsed.ca) throw new Error(`${f('ca.crt')} is not a CA certificate (no basicConstraints CA:TRUE; ${cert.parsed.subject.replace(/\n/g, ', ')}): ${restore}`);
    const key = readPEM(f('ca.key'), (pem) => createPrivateKey(pem));
    if ('error' in key) throw new Error(`${f('ca.key')} is not a private key (${key.error}): ${restore}`);
    if (!cert.parsed.checkPrivateKey(key.parsed)) throw new Error(`${f('ca.key')} is not the key of ${f('ca.crt')}: ${restore}`);
    ca = cert.pem;
    caKey = key.pem;
    caCert = cert.parsed;
  } else {
    const now = new Date();
    const pems = await generate([{ name: 'commonName', value: 'hcc-ca' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate: new Date(now.getTime() - 60_000),
      notAfterDate: new Date(now.getTime() + 3650 * DAY_MS),
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    });
    ca = pems.cert;
    caKey = pems.private;
    caCert = new X509Certificate(ca);
    // The key first: a crash between the two leaves a half that the next start names.
    writeFileAtomic(f('ca.key'), caKey, 0o600);
    writeFileAtomic(f('ca.crt'), ca);
  }
  if (existsSync(f('server.crt')) && existsSync(f('server.key'))) {
    const cert = readPEM(f('server.crt'), (pem) => new X509Certificate(pem));
    const key = readPEM(f('server.key'), (pem) => createPrivateKey(pem));
    if (!('error' in cert) && !('error' in key) && issuedBy(cert.parsed, key.parsed, caCert) && covers(cert.pem, names)) {
      return { ca, cert: cert.pem, key: key.pem };
    }
  }
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: 'hcc-control-center' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 365 * DAY_MS),
    ca: { key: caKey, cert: ca },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
    ],
  });
  writeFileAtomic(f('server.key'), pems.private, 0o600);
  writeFileAtomic(f('server.crt'), pems.cert);
  return { ca, cert: pems.cert, key: pems.private };
}
