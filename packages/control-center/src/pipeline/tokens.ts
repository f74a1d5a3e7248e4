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
  const t0 = readToken(file);
  if (t0) return t0;
  ensureDir(path.dirname(file), 0o700);
  const t = randomBytes(24).toString('hex');
  writeFileSync(file, `${t}\n`, { mode: 0o600 });
  return t;
}

/** The token kept in `file` (trimmed), or undefined when the file is absent or empty; writes nothing. */
export function readToken(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').trim() || undefined;
}

/**
 * Parses a static token file.
 * @returns token → user
 * @throws Error naming the line of a malformed entry, or of a token an earlier line gave another user
 */
export function parseTokenFile(text: string, source: string): Map<string, UserInfo> {
  const out = new Map<string, UserInfo>();
  const lineOf = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    // token,user,uid[,"g1,g2"]
    const m = /^([^,]+),([^,]+),([^,]*)(?:,(?:"([^"]*)"|([^,]*)))?$/.exec(line);
    if (!m) throw new Error(`${source}:${i + 1}: want token,user,uid[,"group1,group2"]`);
    const groups = (m[4] ?? m[5] ?? '').split(',').map((g) => g.trim()).filter(Boolean);
    const uid = m[3]!.trim();
    const token = m[1]!.trim();
    // kube-apiserver only warns and lets the last line win; one token is one identity here, so a
    // line copied without a new token (one syncer silently becoming another) stops the start.
    const earlier = out.get(token);
    const user: UserInfo = { name: m[2]!.trim(), groups, ...(uid ? { uid } : {}) };
    // The same line twice names one identity: harmless, kept once.
    if (earlier && earlier.name === user.name && earlier.uid === user.uid && earlier.groups.join(',') === user.groups.join(',')) return;
    if (earlier) throw new Error(`${source}:${i + 1}: the token of user ${user.name} is already the token of user ${earlier.name} (line ${lineOf.get(token)}); give each user its own token`);
    lineOf.set(token, i + 1);
    out.set(token, user);
  });
  return out;
}
