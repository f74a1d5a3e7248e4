/**
 * Validation workers: runs the read-only part of a custom resource's create check (structural
 * validation and CEL rules, {@link checkPreparedCreate}) on worker threads, so the event loop that
 * serves HTTP, TLS and storage is not also the one that evaluates every rule. On a 2-core machine
 * the API server's main thread is the bottleneck of create-heavy work while the second core is
 * mostly idle; kube-apiserver (Go) spreads the same work over every core.
 *
 * Guarantees:
 * - The answer is exactly what {@link checkPreparedCreate} returns in-process: the worker runs the
 *   same function on a structured clone of the prepared object and the same schema.
 * - Never a lost or failed request because of a worker: when no worker is alive (none configured,
 *   crashed, closed) or a worker fails a request, that check runs in-process.
 * - A schema is sent to each worker once (with its first use) and dropped from the workers when
 *   the main thread lets go of it (a CRD updated or deleted), so workers do not grow with CRD churn.
 *
 * Not guaranteed: order of answers across requests (each caller awaits its own).
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { FieldError } from '../../apierrors/field.js';
import { checkPreparedCreate, type CheckErrors } from './index.js';
import type { JSONSchemaProps } from './types.js';

/** One object to check. */
export interface CheckItem {
  id: number;
  schemaId: number;
  /** Sent with the first check of a schema on a worker. */
  schema?: JSONSchemaProps;
  obj: Record<string, unknown>;
  celBudgetMs?: number;
}

/** A message to a validation worker: the checks queued during one event-loop turn, or a schema to forget. */
export type WorkerRequest = { op: 'check'; items: CheckItem[] } | { op: 'drop'; schemaId: number };

/** A worker's answer to one check: the result, or why it could not check. */
export type CheckReply = { id: number; errors: FieldError[]; warnings: string[] } | { id: number; failure: string };

/** A worker's answer to one {@link WorkerRequest} `check`, in the order of its items. */
export type WorkerReply = CheckReply[];

/** Where a custom resource's read-only create check runs (a {@link ValidationPool}, or in-process). */
export interface SchemaChecker {
  /**
   * {@link checkPreparedCreate} of `obj` (already prepared by `prepareCustomResource`, not rejected).
   * Never rejects for worker trouble (falls back to in-process); throws only what the check itself throws.
   */
  checkCreate(obj: Record<string, unknown>, schema: JSONSchemaProps): Promise<CheckErrors>;
}

/**
 * The default worker count for a server process: one when the machine has more than one core
 * (the second core then takes the rule evaluation), else none.
 */
export function defaultValidationWorkers(): number {
  return os.availableParallelism() > 1 ? 1 : 0;
}

/**
 * The worker script: the compiled validation-worker.js beside this module. When this module runs
 * from TypeScript sources (vitest), the compiled copy under dist/ is used (`npm run build` first).
 */
function workerURL(): URL | undefined {
  const here = new URL('./validation-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const compiled = new URL(import.meta.url.replace('/src/', '/dist/').replace(/\.ts$/, '.js'));
  const sibling = new URL('./validation-worker.js', compiled);
  return existsSync(fileURLToPath(sibling)) ? sibling : undefined;
}

/**
 * The process's Node options without `--conditions`/`-C`: the worker runs compiled JavaScript, so
 * a `source` export condition (vitest resolves workspace packages to their TypeScript sources)
 * must not follow it.
 */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const args = process.execArgv;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--conditions' || a === '-C') i++;
    else if (!a.startsWith('--conditions=') && !a.startsWith('-C=')) out.push(a);
  }
  return out;
}

interface Pending {
  resolve(r: CheckErrors): void;
  reject(e: unknown): void;
  obj: Record<string, unknown>;
  schema: JSONSchemaProps;
  celBudgetMs: number | undefined;
}

/** One worker thread and what it holds. */
class PoolWorker {
  readonly pending = new Map<number, Pending>();
  /** Checks waiting for the end of this event-loop turn, sent as one message. */
  batch: CheckItem[] = [];
  /** Schema ids this worker has been sent. */
  readonly known = new Set<number>();
  alive = true;

  constructor(readonly worker: Worker) {}
}

/** A fixed set of validation worker threads; see the module doc. */
export class ValidationPool implements SchemaChecker {
  private readonly workers: PoolWorker[] = [];
  private nextId = 0;
  private nextSchemaId = 0;
  private readonly schemaIds = new WeakMap<JSONSchemaProps, number>();
  /** Tells workers to forget a schema once the main thread has collected it. */
  private readonly forget = new FinalizationRegistry<number>((schemaId) => {
    for (const w of this.workers) {
      if (w.alive && w.known.delete(schemaId)) w.worker.postMessage({ op: 'drop', schemaId } satisfies WorkerRequest);
    }
  });
  private closed = false;

  /**
   * Starts `size` worker threads (0: every check runs in-process).
   * @param size - worker count (an integer ≥ 0)
   * @param opts.onChecked - called once per answered check with where it ran (metrics)
   * @param opts.onWorkers - called with the live worker count whenever it changes (metrics)
   * @param opts.celBudgetMs - CEL wall-clock budget per object, in milliseconds (default: cel.ts's)
   */
  constructor(
    size: number,
    private readonly logger?: Logger,
    private readonly opts: { onChecked?: (where: 'worker' | 'in-process') => void; onWorkers?: (live: number) => void; celBudgetMs?: number } = {},
  ) {
    const url = size > 0 ? workerURL() : undefined;
    if (size > 0 && !url) logger?.warn('validation worker script not found (run `npm run build`); validating in-process');
    for (let i = 0; url && i < size; i++) this.spawn(url);
    opts.onWorkers?.(this.size);
  }

  /** Live worker count. */
  get size(): number {
    return this.workers.filter((w) => w.alive).length;
  }

  private spawn(url: URL): void {
    const worker = new Worker(url, { execArgv: workerExecArgv() });
    worker.unref();
    const pw = new PoolWorker(worker);
    worker.on('message', (replies: WorkerReply) => {
      for (const m of replies) {
        const p = pw.pending.get(m.id);
        if (!p) continue;
        pw.pending.delete(m.id);
        if ('failure' in m) {
          this.logger?.warn({ failure: m.failure }, 'validation worker could not check an object; checking in-process');
          this.settleInProcess(p);
        } else {
          this.opts.onChecked?.('worker');
          p.resolve({ errors: m.errors, warnings: m.warnings });
        }
      }
    });
    const down = (why: unknown) => {
      if (!pw.alive) return;
      pw.alive = false;
      this.opts.onWorkers?.(this.size);
      if (!this.closed) this.logger?.error({ err: why }, 'validation worker stopped; its checks run in-process');
      pw.batch = [];
      const held = [...pw.pending.values()];
      pw.pending.clear();
      for (const p of held) this.settleInProcess(p);
    };
    worker.on('error', down);
    worker.on('exit', (code) => down(new Error(`exit code ${code}`)));
    this.workers.push(pw);
  }

  /** Answers a held check in-process; what the check throws goes to its caller, never to the event loop. */
  private settleInProcess(p: Pending): void {
    try {
      p.resolve(this.inProcess(p));
    } catch (e) {
      p.reject(e);
    }
  }

  private inProcess(p: Omit<Pending, 'resolve' | 'reject'>): CheckErrors {
    this.opts.onChecked?.('in-process');
    return checkPreparedCreate(p.obj, p.schema, p.celBudgetMs);
  }

  private schemaIdOf(schema: JSONSchemaProps): number {
    let id = this.schemaIds.get(schema);
    if (id === undefined) {
      id = this.nextSchemaId++;
      this.schemaIds.set(schema, id);
      this.forget.register(schema, id);
    }
    return id;
  }

  checkCreate(obj: Record<string, unknown>, schema: JSONSchemaProps): Promise<CheckErrors> {
    const p: Omit<Pending, 'resolve' | 'reject'> = { obj, schema, celBudgetMs: this.opts.celBudgetMs };
    let w: PoolWorker | undefined;
    if (!this.closed) for (const c of this.workers) if (c.alive && (!w || c.pending.size < w.pending.size)) w = c;
    if (!w) return new Promise<CheckErrors>((resolve, reject) => this.settleInProcess({ ...p, resolve, reject }));
    const id = this.nextId++;
    const schemaId = this.schemaIdOf(schema);
    const first = !w.known.has(schemaId);
    if (first) w.known.add(schemaId);
    w.batch.push({ id, schemaId, obj, ...(first ? { schema } : {}), ...(this.opts.celBudgetMs !== undefined ? { celBudgetMs: this.opts.celBudgetMs } : {}) });
    const worker = w;
    if (worker.batch.length === 1) setImmediate(() => this.send(worker));
    return new Promise<CheckErrors>((resolve, reject) => worker.pending.set(id, { ...p, resolve, reject }));
  }

  /** Posts a worker's batch (one structured clone, one wake-up for every check of the turn). */
  private send(w: PoolWorker): void {
    const items = w.batch;
    w.batch = [];
    if (!w.alive || items.length === 0) return;
    try {
      w.worker.postMessage({ op: 'check', items } satisfies WorkerRequest);
    } catch (e) {
      // Not cloneable (cannot happen for decoded JSON) or the worker is gone: check here.
      this.logger?.warn({ err: e }, 'could not hand objects to a validation worker; checking in-process');
      for (const it of items) {
        const p = w.pending.get(it.id);
        w.pending.delete(it.id);
        if (p) this.settleInProcess(p);
        if (it.schema) w.known.delete(it.schemaId);
      }
    }
  }

  /** Stops the workers; checks in flight and later ones run in-process. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}

