/**
 * Test helpers: real kubectl binaries (extracted by `npm run tools` into .tools/), temporary
 * directories, and waiting.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const hccBin = path.join(repoRoot, 'packages', 'cli', 'bin', 'hcc.js');
export const testdata = path.join(repoRoot, 'testdata', 'hypershift');

/** kubectl versions the tests drive. */
export type KubectlVersion = '1.35' | '1.28' | '1.20';

/** Path of a kubectl binary; throws with the fix when it is missing. */
export function kubectlPath(v: KubectlVersion): string {
  const p = path.join(repoRoot, '.tools', `kubectl-${v}`, 'kubectl');
  if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run tools\` (npm test does it first)`);
  return p;
}

/** Result of a kubectl run. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl with its own cache dir (so discovery from other tests never leaks in).
 * Never throws on a non-zero exit: callers assert on code/stdout/stderr.
 */
export function kubectl(v: KubectlVersion, kubeconfig: string, args: string[], opts: { input?: string; cacheDir?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const cacheDir = opts.cacheDir ?? path.join(path.dirname(kubeconfig), `.kube-cache-${v}`);
  return new Promise((resolve) => {
    const child = execFile(
      kubectlPath(v),
      [...args, `--cache-dir=${cacheDir}`],
      // TMPDIR: kubectl edit keeps a refused edit's file there; beside the kubeconfig, the test's cleanup removes it.
      { env: { PATH: process.env.PATH ?? '', HOME: path.dirname(kubeconfig), TMPDIR: path.dirname(kubeconfig), KUBECONFIG: kubeconfig, ...opts.env }, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
    if (opts.input !== undefined) {
      child.stdin!.write(opts.input);
      child.stdin!.end();
    }
  });
}

/** A temporary directory removed by the returned cleanup. */
export function tempDir(prefix = 'hcc-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Polls fn until it returns a truthy value; throws with `what` after timeoutMs. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
