/**
 * The tools in bench/tools/ refuse a bad command line as the bench does: one line on stderr and
 * exit code 2, before they start anything (loop-requests would otherwise start `hcc up` and
 * create 200 sets, profile-writes a control center under load).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from './helpers/tools.js';

/** A file that is no directory. */
const aFile = path.join(repoRoot, 'package.json');
const tool = (name: string, args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'bench', 'tools', `${name}.mjs`), ...args], { encoding: 'utf8', timeout: 20_000 });

describe('bench tools', () => {
  it.each([
    ['profile-writes', ['--bogus'], "profile-writes: Unknown option '--bogus'"],
    ['profile-writes', ['--op', 'nonsense'], 'profile-writes: --op must be one of create, update, status, get, got "nonsense"'],
    ['profile-writes', ['--seconds', 'abc'], 'profile-writes: --seconds must be a positive number, got "abc"'],
    ['profile-writes', ['--out', ''], 'profile-writes: --out needs a value, got an empty one'],
    ['loop-requests', ['--bogus'], "loop-requests: Unknown option '--bogus'"],
    ['loop-requests', ['--sets', 'abc'], 'loop-requests: --sets must be a positive integer, got "abc"'],
    ['loop-requests', ['--rate', '0'], 'loop-requests: --rate must be a positive number, got "0"'],
    ['cpuprofile-top', [], 'cpuprofile-top: expected at least 1 argument, got 0'],
    ['cpuprofile-top', ['/nonexistent.cpuprofile'], 'cpuprofile-top: /nonexistent.cpuprofile: ENOENT'],
    ['history', ['-x'], "history: Unknown option '-x'"],
    ['history', ['extra'], "history: Unexpected argument 'extra'"],
    ['cpuprofile-top', ['x.cpuprofile', '--top', '0'], 'cpuprofile-top: --top must be a positive integer, got "0"'],
    // A negative number is a bad number, not a missing value; output dirs are checked before anything starts
    // (fs.mkdirSync's recursive mode spins forever under /proc: the tool hung at 100% CPU).
    ['loop-requests', ['--rate', '-1'], 'loop-requests: --rate must be a positive number, got "-1"'],
    ['profile-writes', ['--seconds', '-2'], 'profile-writes: --seconds must be a positive number, got "-2"'],
    ['profile-writes', ['--out', '/proc/nope'], 'profile-writes: --out /proc/nope: cannot write there (ENOENT)'],
    ['profile-writes', ['--out', aFile], `profile-writes: --out ${aFile}: ${aFile} is not a directory`],
    ['loop-requests', ['--cpu-prof', aFile], `loop-requests: --cpu-prof ${aFile}: ${aFile} is not a directory`],
    ['history', ['--since', 'garbage'], 'history: --since must be a run time stamp such as 2026-12-01T00-00-00Z, or its start (2026-12-01, 2026-12-01T06), got "garbage"'],
    ['history', ['--since', '2026-13-45'], 'got "2026-13-45"'],
  ])('%s %j: one line, exit code 2', (name, args, message) => {
    const r = tool(name, args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });

  it.each(['profile-writes', 'loop-requests', 'cpuprofile-top', 'history'])('%s --help prints its usage (from its header) and exits 0', (name) => {
    const r = tool(name, ['--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: node bench/tools/${name}\\.mjs `));
    expect(r.stderr).toBe('');
  });

  it('cpuprofile-top refuses a file that is no profile, and summarises each of several profiles', () => {
    const { dir, cleanup } = tempDir('hcc-cpuprofile-');
    try {
      writeFileSync(path.join(dir, 'not.cpuprofile'), '{"a":1}');
      const bad = tool('cpuprofile-top', [path.join(dir, 'not.cpuprofile')]);
      expect([bad.status, bad.stderr.trim()]).toEqual([2, `cpuprofile-top: ${path.join(dir, 'not.cpuprofile')}: not a V8 .cpuprofile (no nodes, samples and timeDeltas)`]);
      // Two profiles of one sample each: the root (1 ms) calling work (2 ms).
      const profile = (fn: string) => ({
        nodes: [
          { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2] },
          { id: 2, callFrame: { functionName: fn, url: 'file:///x/packages/a.js', lineNumber: 9 } },
        ],
        samples: [1, 2],
        timeDeltas: [1000, 2000],
      });
      for (const n of ['a', 'b']) writeFileSync(path.join(dir, `${n}.cpuprofile`), JSON.stringify(profile(`work_${n}`)));
      const ok = tool('cpuprofile-top', [path.join(dir, 'a.cpuprofile'), path.join(dir, 'b.cpuprofile'), '--top', '1']);
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stdout).toContain(`${path.join(dir, 'a.cpuprofile')}: 0.0 s sampled`);
      expect(ok.stdout).toContain(' 66.7%        2 ms  work_a packages/a.js:10');
      expect(ok.stdout).toContain(' 66.7%        2 ms  work_b packages/a.js:10');
    } finally {
      cleanup();
    }
  });

  it('profile-writes --op get profiles a control center answering GETs of stored HostedClusters', () => {
    const { dir, cleanup } = tempDir('hcc-profile-get-');
    try {
      const r = spawnSync(process.execPath, [path.join(repoRoot, 'bench', 'tools', 'profile-writes.mjs'), '--op', 'get', '--seconds', '1', '--connections', '2', '--out', dir], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      // Every GET answered 200 (the objects it reads were created first), and the profile summarised.
      expect(r.stdout).toMatch(/^get: [1-9]\d* requests \(\d+\/s\), 0 errors\n/);
      expect(r.stdout).toMatch(/\.cpuprofile: [\d.]+ s sampled/);
      expect(r.stdout).toContain('\ntotal time\n');
      expect(r.stdout).toMatch(/serveResource packages\/control-center\/dist\/server\.js/);
    } finally {
      cleanup();
    }
  });
});
