import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeStore } from '../store-contract.js';
import { LevelStore } from './level-store.js';
import type { Store } from '../store.js';

describeStore('level', {
  async make(opts) {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-level-'));
    let current: Store = new LevelStore({ dir, historyCapacity: opts?.historyCapacity });
    await current.open();
    return {
      store: current,
      async reopen() {
        await current.close();
        current = new LevelStore({ dir });
        await current.open();
        return current;
      },
      async cleanup() {
        await current.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
