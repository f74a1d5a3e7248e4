/**
 * Bearer tokens of the control center: the admin token and the scheduler's token are generated
 * once and kept in `<dataDir>/pki/` (mode 0600), so a restarted control center accepts the
 * kubeconfigs it wrote before; more users come from a static token file in kube-apiserver's
 * format (`token,user,uid,"group1,group2"` per line).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#static-token-file
 */
import { ensureDir } from '@hcc/client';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { UserInfo } from './authenticate.js';

/** Reads a token from file, or generates one and writes it there (0600). */
export function readOrCreateToken(file: string): string {
  if (existsSync(file)) {
    const t = readFileSync(file, 'utf8').trim();
    if (t) return t;
  }
  ensureDir(path.dirname(file), 0o700);
  const t = randomBytes(24).toString('hex');
  writeFileSync(file, `${t}\n`, { mode: 0o600 });
  return t;
}

/**
 * Parses a static token file.
 * @returns token → user
 * @throws Error naming the line of a malformed entry
 */
export function parseTokenFile(text: string, source: string): Map<string, UserInfo> {
  const out = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    // token,user,uid[,"g1,g2"]
    const m = /^([^,]+),([^,]+),([^,]*)(?:,(?:"([^"]*)"|([^,]*)))?$/.exec(line);
    if (!m) throw new Error(`${source}:${i + 1}: want token,user,uid[,"group1,group2"]`);
    const groups = (m[4] ?? m[5] ?? '').split(',').map((g) => g.trim()).filter(Boolean);
    const uid = m[3]!.trim();
    out.set(m[1]!.trim(), { name: m[2]!.trim(), groups, ...(uid ? { uid } : {}) });
  });
  return out;
}
