/**
 * What the conformance suite observed, per client and operation, for the README's compatibility
 * table. Each test file records one client's cells with {@link Results.check}, and writes them
 * to `test/conformance/.results/<client>.json` when it ends; `node test/conformance/table.mjs`
 * renders the table from those files. A cell is `✓` when every check of that operation passed,
 * `n/a: <why>` when the client has no such feature upstream, and otherwise the first failure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { it } from 'vitest';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Run } from '../helpers/tools.js';

export const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '.results');

/** Client columns of the table, in order. */
export const clients = ['kubectl-1.20', 'kubectl-1.28', 'kubectl-1.35', 'client-node', 'python'] as const;
export type Client = (typeof clients)[number];

/**
 * One line of a failure, short enough for a table cell. For a failed `expect` on long text the
 * message is truncated by vitest, so the cell quotes what was received instead.
 */
export function summarize(e: unknown): string {
  let msg = e instanceof Error ? e.message : String(e);
  const actual = (e as { actual?: unknown }).actual;
  if (typeof actual === 'string' && /(to contain|to match|to be|to equal)/.test(msg) && /…|\.\.\./.test(msg.split('\n')[0]!)) {
    const own = /^(.*?): expected /.exec(msg)?.[1];
    const got = actual.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? '(empty)';
    msg = `${own ? `${own}: ` : ''}got "${got}"`;
  }
  const line = msg
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0) ?? 'failed';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/** Throws a readable error when a kubectl run failed. */
export function ok(r: Run, what = 'kubectl'): Run {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${(r.stderr || r.stdout).trim().split('\n')[0]}`);
  return r;
}

/** The cells one client filled in. */
export class Results {
  private readonly cells: Record<string, string> = {};

  constructor(readonly client: Client) {}

  /**
   * Runs one check of an operation (a row): records ✓, or the failure (which wins over earlier
   * passes of the same row), and rethrows so the test fails too.
   */
  async check(row: string, fn: () => Promise<void> | void): Promise<void> {
    try {
      await fn();
      if (this.cells[row] === undefined) this.cells[row] = '✓';
    } catch (e) {
      if (this.cells[row] === undefined || this.cells[row] === '✓' || this.cells[row]!.startsWith('n/a')) this.cells[row] = summarize(e);
      throw e;
    }
  }

  /**
   * A vitest `it` whose checks all run even when one fails (so each row gets a cell); the test
   * fails at the end with the first failure (and the count of the others).
   */
  test(title: string, fn: (check: (row: string, f: () => Promise<void> | void) => Promise<void>) => Promise<void>, timeoutMs?: number): void {
    it(title, async () => {
      const errors: unknown[] = [];
      await fn(async (row, f) => {
        try {
          await this.check(row, f);
        } catch (e) {
          errors.push(e);
        }
      });
      if (errors.length === 1) throw errors[0];
      if (errors.length > 1) {
        const first = errors[0] as Error;
        first.message = `${first.message}\n(and ${errors.length - 1} more failed checks: ${errors.slice(1).map(summarize).join(' | ')})`;
        throw first;
      }
    }, timeoutMs);
  }

  /** Marks an operation the client does not have upstream (the test still checks how it refuses). */
  notApplicable(row: string, why: string): void {
    if (this.cells[row] === undefined) this.cells[row] = `n/a: ${why}`;
  }

  write(): void {
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(path.join(resultsDir, `${this.client}.json`), `${JSON.stringify({ client: this.client, at: new Date().toISOString(), cells: this.cells }, null, 2)}\n`);
  }
}
