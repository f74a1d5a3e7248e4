/**
 * Serving certificates of the control center: on first start a private CA and a serving
 * certificate signed by it are generated into `<dataDir>/pki/` (ECDSA P-256, 10 years for the
 * CA, 1 year for the serving certificate, renewed at start when it expires within 30 days or
 * lacks a requested name); the CA goes into the admin kubeconfig as
 * `certificate-authority-data`, as kubeadm does for kube-apiserver.
 * @see https://kubernetes.io/docs/setup/best-practices/certificates/
 */
import { ensureDir } from '@hcc/client';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';

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

/** Names every serving certificate carries, plus the extra ones asked for. */
export function servingNames(extra: string[] = []): string[] {
  return [...new Set(['localhost', '127.0.0.1', '::1', hostname(), ...extra].filter(Boolean))];
}

function isIP(s: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(s) || s.includes(':');
}

function covers(certPem: string, names: string[]): boolean {
  const c = new X509Certificate(certPem);
  if (Date.parse(c.validTo) - Date.now() < 30 * DAY_MS) return false;
  const san = c.subjectAltName ?? '';
  // IPv6 addresses print expanded (0:0:...:1); they are always generated with the IPv4 ones.
  return names.filter((n) => !n.includes(':')).every((n) => san.includes(isIP(n) ? `IP Address:${n}` : `DNS:${n}`));
}

/**
 * Loads the CA and serving certificate from dir, generating what is missing or stale.
 * @param dir - directory holding ca.crt, ca.key, server.crt, server.key (created when missing)
 * @param extraNames - further DNS names or IP addresses the serving certificate must carry
 */
export async function ensureServingCerts(dir: string, extraNames: string[] = []): Promise<ServingCerts> {
  ensureDir(dir, 0o700);
  const f = (n: string) => path.join(dir, n);
  const names = servingNames(extraNames);
  // The certificate library (100–200 ms to load) is loaded only when something must be generated.
  const generate = async (...args: Parameters<typeof import('selfsigned').generate>) => (await import('selfsigned')).default.generate(...args);
  let ca: string;
  let caKey: string;
  if (existsSync(f('ca.crt')) && existsSync(f('ca.key'))) {
    ca = readFileSync(f('ca.crt'), 'utf8');
    caKey = readFileSync(f('ca.key'), 'utf8');
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
    writeFileSync(f('ca.crt'), ca);
    writeFileSync(f('ca.key'), caKey, { mode: 0o600 });
  }
  if (existsSync(f('server.crt')) && existsSync(f('server.key'))) {
    const cert = readFileSync(f('server.crt'), 'utf8');
    if (covers(cert, names)) return { ca, cert, key: readFileSync(f('server.key'), 'utf8') };
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
  writeFileSync(f('server.crt'), pems.cert);
  writeFileSync(f('server.key'), pems.private, { mode: 0o600 });
  return { ca, cert: pems.cert, key: pems.private };
}
