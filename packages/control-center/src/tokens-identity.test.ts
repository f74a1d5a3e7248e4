/**
 * One bearer token is one identity: startControlCenter refuses to start when the scheduler's
 * token is the admin's, or a --token-file user has either, instead of letting one identity
 * silently replace the other (the scheduler would be the admin, or a user the scheduler). Nothing
 * is opened or served before the refusal.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startControlCenter, type ControlCenterOptions } from './control-center.js';

describe('token identities', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const start = (extra: Partial<ControlCenterOptions>) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-tokens-'));
    dirs.push(dir);
    return { dir, started: startControlCenter({ dataDir: dir, port: 0, tls: false, logger: pino({ enabled: false }), ...extra }) };
  };

  it("refuses a scheduler token equal to the admin's", async () => {
    const { dir, started } = start({ adminToken: 'same-token', schedulerToken: 'same-token' });
    await expect(started).rejects.toThrow("the scheduler's token is the admin's token");
    expect(existsSync(path.join(dir, 'CURRENT'))).toBe(false); // the level store was never opened
  });

  it.each([
    { name: 'admin', token: 'admin-token', want: 'the token of user bob is the admin token' },
    { name: 'scheduler', token: 'sched-token', want: "the token of user bob is the scheduler's token" },
  ])("refuses a --token-file user holding the $name's token", async ({ name, token, want }) => {
    const tokenFile = path.join(mkdtempSync(path.join(tmpdir(), 'hcc-tokenfile-')), 'tokens.csv');
    dirs.push(path.dirname(tokenFile));
    writeFileSync(tokenFile, `${token},bob,u1\n`);
    // Only the one held is given: the other would be generated, and is not (nothing is written).
    const { dir, started } = start({ ...(name === 'admin' ? { adminToken: token } : { schedulerToken: token }), tokenFile });
    await expect(started).rejects.toThrow(want);
    expect(existsSync(path.join(dir, 'pki'))).toBe(false);
  });

  it("refuses a --token-file user holding a token kept in the data dir's pki", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-tokens-'));
    dirs.push(dir);
    const first = await startControlCenter({ dataDir: dir, port: 0, tls: false, logger: pino({ enabled: false }) });
    await first.close();
    const kept = readFileSync(path.join(dir, 'pki', 'scheduler.token'), 'utf8').trim();
    const tokenFile = path.join(dir, 'tokens.csv');
    writeFileSync(tokenFile, `${kept},bob,u1\n`);
    await expect(startControlCenter({ dataDir: dir, port: 0, tls: false, logger: pino({ enabled: false }), tokenFile })).rejects.toThrow("the token of user bob is the scheduler's token");
  });

  it('refuses a token file that gives one token to two users (kube-apiserver only warns and takes the last)', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'hcc-tokfile-')), 'tokens.csv');
    dirs.push(path.dirname(file));
    writeFileSync(file, 'tok1,hcc:syncer:mgmt-1,u1,"hcc:syncers"\n# a copied line\ntok1,hcc:syncer:mgmt-2,u2,"hcc:syncers"\n');
    const { dir, started } = start({ tokenFile: file });
    await expect(started).rejects.toThrow(`--token-file ${file}:3: the token of user hcc:syncer:mgmt-2 is already the token of user hcc:syncer:mgmt-1 (line 1); give each user its own token`);
    // Refused before anything is written: no store, no generated tokens.
    expect(existsSync(path.join(dir, 'CURRENT'))).toBe(false);
    expect(existsSync(path.join(dir, 'pki'))).toBe(false);
  });

  it('takes the same line twice (one identity) as once', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'hcc-tokfile-')), 'tokens.csv');
    dirs.push(path.dirname(file));
    writeFileSync(file, 'tok1,alice,u1,"devs"\ntok1,alice,u1,"devs"\n');
    const { started } = start({ tokenFile: file });
    const cc = await started;
    const res = await fetch(`${cc.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: 'POST', headers: { authorization: 'Bearer tok1', 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }) });
    expect(((await res.json()) as { status: { userInfo: { username: string } } }).status.userInfo.username).toBe('alice');
    await cc.close();
  });
});
