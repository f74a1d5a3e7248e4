/**
 * The body of a validation worker thread (see validation-pool.ts): answers each
 * {@link CheckRequest} with {@link checkPreparedCreate}'s errors and warnings. Schemas arrive once
 * per worker, with the first request that uses them, and are kept by id until the pool says the
 * main thread dropped them, so the compiled walks and CEL programs (cached by schema identity)
 * are built once per worker.
 */
import { parentPort } from 'node:worker_threads';
import { checkPreparedCreate } from './index.js';
import type { CheckReply, WorkerRequest, WorkerReply } from './validation-pool.js';
import type { JSONSchemaProps } from './types.js';

const schemas = new Map<number, JSONSchemaProps>();

parentPort?.on('message', (m: WorkerRequest) => {
  if (m.op === 'drop') {
    schemas.delete(m.schemaId);
    return;
  }
  const replies: WorkerReply = m.items.map((it): CheckReply => {
    try {
      if (it.schema) schemas.set(it.schemaId, it.schema);
      const schema = schemas.get(it.schemaId);
      if (!schema) throw new Error(`schema ${it.schemaId} unknown to this worker`);
      const { errors, warnings } = checkPreparedCreate(it.obj, schema, it.celBudgetMs);
      return { id: it.id, errors, warnings };
    } catch (e) {
      return { id: it.id, failure: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    }
  });
  parentPort?.postMessage(replies);
});
