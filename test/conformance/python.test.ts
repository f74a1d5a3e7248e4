/**
 * API conformance with Debian's python3-kubernetes dynamic client (python/dynamic_client.py):
 * discovery, create, get, list with label and field selectors, merge/JSON/strategic patches,
 * conflicts, watch (replay, by name, 410 Expired), server-side apply and delete, against one
 * `hcc control-center` with a short watch history. Requires python3-kubernetes (`.ci/run`
 * installs it); without it these tests fail, they are never skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from '../helpers/processes.js';
import { Results } from './results.js';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'python', 'dynamic_client.py');
const rows = [
  'api-resources',
  'create namespace',
  'create secret generic',
  'create -f (custom resource)',
  'get -o json',
  'get -l (in, notin, !key)',
  'get --field-selector',
  'patch --type=merge',
  'patch --type=json',
  'patch --type=strategic on a custom resource (refused)',
  'update with a stale resourceVersion (409)',
  'get -w',
  'watch: 410 Expired for a compacted resourceVersion',
  'apply --server-side',
  'delete (finalizers, --wait)',
];

/** Debian's interpreter first (apt installs python3-kubernetes for it), then whatever python3 is on PATH. */
function findPython(): { python?: string; tried: string[] } {
  const tried: string[] = [];
  for (const p of ['/usr/bin/python3', 'python3']) {
    if (p.startsWith('/') && !existsSync(p)) continue;
    tried.push(p);
    try {
      execFileSync(p, ['-c', 'import kubernetes.dynamic'], { stdio: 'ignore' });
      return { python: p, tried };
    } catch {
      /* try the next one */
    }
  }
  return { tried };
}

describe('python3-kubernetes dynamic client against the control center', () => {
  const results = new Results('python');
  const scratch = tempDir('hcc-python-');
  const { python, tried } = findPython();
  let cc: ControlCenterProcess | undefined;
  let out: Map<string, { ok: boolean; detail: string }> | undefined;
  let runError = '';

  beforeAll(async () => {
    if (!python) return;
    cc = await startControlCenterProcess({ extraArgs: ['--watch-history', '20'] });
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(python, [script, cc!.kubeconfig, 'py', path.join(scratch.dir, 'discovery.json')], { timeout: 90_000, env: { PATH: process.env.PATH ?? '', HOME: scratch.dir } }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
      ),
    );
    out = new Map();
    for (const line of r.stdout.split('\n').filter((l) => l.startsWith('{'))) {
      const { row, ok, detail } = JSON.parse(line) as { row: string; ok: boolean; detail: string };
      out.set(row, { ok, detail });
    }
    if (r.code !== 0) runError = `dynamic_client.py exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`;
  }, 120_000);
  afterAll(async () => {
    results.write();
    await cc?.stop();
    scratch.cleanup();
  });

  it('has python3-kubernetes', () => {
    expect(python, `python3-kubernetes is not importable by ${tried.join(' or ')}: install Debian's python3-kubernetes (apt-get install python3-kubernetes; .ci/run does)`).toBeTruthy();
    expect(runError).toBe('');
  });

  it.each(rows)('%s', async (row) => {
    await results.check(row, () => {
      if (!python) throw new Error('python3-kubernetes is not installed');
      const got = out?.get(row);
      if (!got) throw new Error(`dynamic_client.py reported nothing for this check${runError ? ` (${runError})` : ''}`);
      if (!got.ok) throw new Error(got.detail);
    });
  });
});
