import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import YAML from 'yaml';
import { lastErrorLine, nextRestart, StableMs, Supervisor } from './supervisor.js';

describe('lastErrorLine', () => {
  it("finds the last `hcc: ` line of this start's output, not an earlier start's", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-sup-'));
    try {
      const log = path.join(dir, 'control-center.log');
      writeFileSync(log, '{"level":30,"msg":"serving"}\nhcc: an earlier start failed\n');
      const from = statSync(log).size;
      expect(lastErrorLine(log, from)).toBe('');
      appendFileSync(log, '{"level":30,"msg":"starting"}\nhcc: the data directory is in use by another hcc process\n');
      expect(lastErrorLine(log, from)).toBe('the data directory is in use by another hcc process');
      // A refused flag says `error: ` (commander's and the state-dir checks' lines).
      appendFileSync(log, "error: option '--port <n>' argument 'x' is invalid\n");
      expect(lastErrorLine(log, from)).toBe("option '--port <n>' argument 'x' is invalid");
      // A command's own refusal names the command (`hcc scheduler: `).
      appendFileSync(log, 'hcc scheduler: the identity of --kubeconfig may not bind HostedClusters\n');
      expect(lastErrorLine(log, from)).toBe('the identity of --kubeconfig may not bind HostedClusters');
      expect(lastErrorLine(path.join(dir, 'missing.log'))).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('nextRestart (hcc up restarting a child that exited)', () => {
  it('backs off 500 ms doubling to 10 s and gives up after 10 short runs in a row', () => {
    const delays: number[] = [];
    let restarts = 0;
    for (let i = 0; i < 10; i++) {
      const next = nextRestart(restarts, 1_000);
      if (next === 'give-up') throw new Error(`gave up after ${i}`);
      delays.push(next.delayMs);
      restarts = next.restarts;
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    expect(nextRestart(restarts, 1_000)).toBe('give-up');
  });

  it('starts over after a run of a minute or more: crashes days apart never add up to giving up', () => {
    expect(nextRestart(9, StableMs)).toEqual({ restarts: 1, delayMs: 500 });
    expect(nextRestart(10, 3_600_000)).toEqual({ restarts: 1, delayMs: 500 });
    expect(nextRestart(10, StableMs - 1)).toBe('give-up');
  });
});

describe("Supervisor's own log (hcc up's up.log)", () => {
  it('records each child started (pid, args), ready, restarted after an exit, and stopped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-sup-'));
    // A stand-in for dist/main.js: says it is ready, then exits on its own once (the restart).
    const entry = path.join(dir, 'child.mjs');
    writeFileSync(
      entry,
      [
        "import { existsSync, writeFileSync } from 'node:fs';",
        'const marker = process.argv[2];',
        "process.send({ type: 'ready', name: 'child', url: 'http://127.0.0.1:1' });",
        'if (!existsSync(marker)) { writeFileSync(marker, "x"); setTimeout(() => process.exit(3), 50); }',
        'else setInterval(() => {}, 1000);',
      ].join('\n'),
    );
    const lines: Record<string, unknown>[] = [];
    const raw: string[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void (raw.push(l), lines.push(JSON.parse(l))) });
    const sup = new Supervisor(entry, dir, log);
    try {
      await sup.start({ name: 'child', args: [path.join(dir, 'marker')] });
      await waitUntil(() => lines.some((l) => l.msg === 'child ready again'));
    } finally {
      await sup.stopAll(5_000, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    }
    const msgs = lines.map((l) => l.msg);
    // Why it stopped is in the log too, not only on the console.
    expect(lines.find((l) => l.msg === 'stopping every child')).toMatchObject({ reason: 'SIGINT', children: ['child'] });
    expect(msgs).toEqual(['child started', 'child ready', 'child exited', 'restarting child', 'child started', 'child ready again', 'stopping every child', 'child stopped']);
    expect(lines[0]).toMatchObject({ child: 'child', childPid: expect.any(Number), args: [path.join(dir, 'marker')] });
    expect(lines[2]).toMatchObject({ child: 'child', code: 3 });
    expect(lines[7]).toMatchObject({ child: 'child', signal: 'SIGTERM' });
    // No key twice in a line (pino's base has `pid`, the supervisor's own): strict JSON readers refuse that.
    for (const l of raw) expect(YAML.parseDocument(l, { uniqueKeys: true }).errors, l).toEqual([]);
  });
});

describe('Supervisor stopped during a start (Ctrl-C while hcc up starts)', () => {
  it('logs the child it stopped before it was ready at info, not as a child that failed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-sup-'));
    // A stand-in that never says it is ready.
    const entry = path.join(dir, 'slow.mjs');
    writeFileSync(entry, 'setInterval(() => {}, 1000);\n');
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const sup = new Supervisor(entry, dir, log);
    try {
      const started = sup.start({ name: 'slow', args: [] });
      const outcome = started.then(
        () => 'ready',
        (err: Error) => err.message,
      );
      await waitUntil(() => lines.some((l) => l.msg === 'child started'));
      await sup.stopAll(5_000);
      expect(await outcome).toBe('slow stopped before it was ready');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(lines.find((l) => l.msg === 'child stopped before it was ready')).toMatchObject({ level: 30, child: 'slow', signal: 'SIGTERM' });
  });
});

describe('Supervisor: a child that does not become ready in time', () => {
  it('fails the start and stops that child (it would hold its port and data dir until stopAll)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-sup-'));
    const entry = path.join(dir, 'stuck.mjs');
    writeFileSync(entry, 'setInterval(() => {}, 1000);\n');
    mkdirSync(path.join(dir, 'logs'));
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const sup = new Supervisor(entry, path.join(dir, 'logs'), log);
    try {
      const outcome = sup.start({ name: 'stuck', args: [] }, 300).then(
        () => 'ready',
        (err: Error) => err.message,
      );
      expect(await outcome).toMatch(/^stuck did not become ready within 0.3s; see /);
      const pid = sup.pid('stuck')!;
      await waitUntil(() => !alive(pid));
      await waitUntil(() => lines.some((l) => l.msg === 'child stopped after its start timed out'));
      expect(JSON.parse(readFileSync(path.join(dir, 'processes.json'), 'utf8')).stuck).toBeUndefined();
    } finally {
      await sup.stopAll(5_000);
      rmSync(dir, { recursive: true, force: true });
    }
    expect(lines.find((l) => l.msg === 'child did not become ready in time: stopping it')).toMatchObject({ level: 50, child: 'stuck', timeoutMs: 300 });
  });
});

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
