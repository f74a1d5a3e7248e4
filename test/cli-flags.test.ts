/**
 * The hcc CLI's flags: a bad value stops the command before it does anything (no data directory,
 * no stack trace), with commander's one-line error and exit code 1; HCC_LOG_LEVEL sets the log
 * level of a command run without --log-level, as the README says.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startControlCenterProcess, stopProcess } from './helpers/processes.js';
import { hccBin, kubectl, tempDir, waitFor } from './helpers/tools.js';

/** Runs the hcc CLI with args in cwd; resolves with its exit code and stderr (never rejects). */
function run(args: string[], cwd: string): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [hccBin, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'], timeout: 20_000 });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe('hcc flags', () => {
  it.concurrent.for([
    { args: ['control-center', '--port', 'abc'], msg: "option '--port <port>' argument 'abc' is invalid. must be an integer >= 0 and <= 65535" },
    { args: ['up', '--state-dir', ''], msg: "option '--state-dir <dir>' argument '' is invalid. must not be empty (give a path)" },
    { args: ['control-center', '--data-dir', ''], msg: "option '--data-dir <dir>' argument '' is invalid. must not be empty (give a path)" },
    { args: ['management-cluster', '--kubeconfig', ' '], msg: "option '--kubeconfig <path>' argument ' ' is invalid. must not be empty (give a path)" },
    { args: ['control-center', '--port', '99999'], msg: "option '--port <port>' argument '99999' is invalid. must be an integer >= 0 and <= 65535" },
    { args: ['control-center', '--bookmark-interval', 'abc'], msg: "option '--bookmark-interval <seconds>' argument 'abc' is invalid. must be a number > 0" },
    { args: ['control-center', '--host', '999.1.1.1'], msg: "option '--host <host>' argument '999.1.1.1' is invalid. must be an IP address or a host name" },
    { args: ['control-center', '--token-file', '/nonexistent/tokens.csv'], msg: "option '--token-file <file>' argument '/nonexistent/tokens.csv' is invalid. no such file" },
    { args: ['control-center', '--tls-san', 'cc.example.com,bad name!'], msg: "option '--tls-san <names>' argument 'cc.example.com,bad name!' is invalid. must be IP addresses or DNS names" },
    { args: ['management-cluster', '--host', '1.2.3'], msg: "option '--host <host>' argument '1.2.3' is invalid." },
    { args: ['control-center', '--log-level', 'loud'], msg: "option '--log-level <level>' argument 'loud' is invalid. Allowed choices are fatal, error, warn, info, debug, trace, silent." },
    { args: ['up', '--log-level', 'loud'], msg: "option '--log-level <level>' argument 'loud' is invalid." },
    { args: ['up', '--capacity', '-1'], msg: "option '--capacity <k>' argument '-1' is invalid. must be an integer >= 0 and <= 2147483647" },
    { args: ['up', '--capacity', '1e3'], msg: "option '--capacity <k>' argument '1e3' is invalid. must be an integer >= 0 and <= 2147483647" },
    { args: ['up', '--capacity', '2147483648'], msg: "option '--capacity <k>' argument '2147483648' is invalid. must be an integer >= 0 and <= 2147483647" },
    { args: ['up', '--management-clusters', '100000'], msg: "option '--management-clusters <n>' argument '100000' is invalid. must be an integer >= 1 and <= 100" },
    { args: ['up', '--management-clusters', '0'], msg: "option '--management-clusters <n>' argument '0' is invalid. must be an integer >= 1" },
    { args: ['up', '--heartbeat-interval', '0'], msg: "option '--heartbeat-interval <seconds>' argument '0' is invalid. must be a number >= 0.5" },
    // Heartbeats every 10 ms only cost CPU everywhere (a 1 s Lease).
    { args: ['up', '--heartbeat-interval', '0.01'], msg: "option '--heartbeat-interval <seconds>' argument '0.01' is invalid. must be a number >= 0.5 and <= 3600" },
    // A delay past 2^31-1 ms fires at once in Node: the sim would reconcile in a loop.
    { args: ['up', '--available-delay', '3000000000'], msg: "option '--available-delay <ms>' argument '3000000000' is invalid. must be an integer >= 0 and <= 2147483647" },
    { args: ['management-cluster', '--delete-delay', '3000000000'], msg: "option '--delete-delay <ms>' argument '3000000000' is invalid. must be an integer >= 0 and <= 2147483647" },
    { args: ['up', '--heartbeat-grace', '0'], msg: "option '--heartbeat-grace <seconds>' argument '0' is invalid. must be a number > 0" },
    // Seconds that become timers: past 2^31-1 ms Node fires them after 1 ms (a bookmark or Lease-renewal storm).
    { args: ['control-center', '--bookmark-interval', '99999999'], msg: "option '--bookmark-interval <seconds>' argument '99999999' is invalid. must be a number > 0 and <= 2147483" },
    { args: ['scheduler', '--kubeconfig', ''], msg: "option '--kubeconfig <path>' argument '' is invalid. must not be empty (give a path)" },
    // An empty file flag (`--authorization-policy "$POLICY"` with the variable unset) is refused, never read as "none".
    { args: ['control-center', '--authorization-policy', ''], msg: "option '--authorization-policy <file>' argument '' is invalid. must not be empty (give a path)" },
    { args: ['management-cluster', '--authorization-policy', ''], msg: "option '--authorization-policy <file>' argument '' is invalid. must not be empty (give a path)" },
    { args: ['scheduler', '--config', ''], msg: "option '--config <file>' argument '' is invalid. must not be empty (give a path)" },
    { args: ['up', '--scheduler-config', ''], msg: "option '--scheduler-config <file>' argument '' is invalid. must not be empty (give a path)" },
    { args: ['hypershift-sim', '--kubeconfig', ''], msg: "option '--kubeconfig <path>' argument '' is invalid. must not be empty (give a path)" },
    { args: ['syncer', '--name', 'm1', '--management-kubeconfig', ''], msg: "option '--management-kubeconfig <path>' argument '' is invalid. must not be empty (give a path)" },
    { args: ['syncer', '--name', 'm1', '--kubeconfig', ''], msg: "option '--kubeconfig <path>' argument '' is invalid. must not be empty (give a path)" },
    // An empty identity (`--id "$POD_NAME"` unset) made the scheduler retry its election in a tight loop.
    { args: ['scheduler', '--id', ''], msg: "option '--id <identity>' argument '' is invalid. must not be empty" },
    { args: ['scheduler', '--id', ' '], msg: "option '--id <identity>' argument ' ' is invalid. must not be empty" },
    // As kubectl's `See 'kubectl get --help' for usage.`: a subcommand's flag error points to its own help.
    { args: ['up', '--bogus'], msg: "error: unknown option '--bogus'\nSee 'hcc up --help' for usage." },
    { args: ['scheduler', '--metrics-host', '999.1.1.1'], msg: "option '--metrics-host <host>' argument '999.1.1.1' is invalid. must be an IP address or a host name" },
    { args: ['scheduler', '--retry-period', '3000000'], msg: "option '--retry-period <seconds>' argument '3000000' is invalid. must be a number > 0 and <= 2147483" },
    { args: ['scheduler', '--lease-duration', '5000000'], msg: "option '--lease-duration <seconds>' argument '5000000' is invalid. must be an integer >= 1 and <= 2147483" },
    { args: ['up', '--heartbeat-grace', '2147484'], msg: "option '--heartbeat-grace <seconds>' argument '2147484' is invalid. must be a number > 0 and <= 2147483" },
    { args: ['up', '--mode', 'Foo'], msg: `option '--mode <mode>' argument 'Foo' is invalid. must be Pull or Push (any letter case), got "Foo"` },
    // deploy/syncer's Deployment passes --name= until the ConfigMap's name key is set: say where to set it.
    { args: ['syncer', '--name='], msg: "option '--name <name>' argument '' is invalid. must not be empty: give the ManagementCluster's name (with deploy/syncer, the `name` key of its hcc-syncer ConfigMap; with Helm, managementCluster.name)" },
    { args: ['management-cluster', '--name', 'Bad_Name'], msg: "option '--name <name>' argument 'Bad_Name' is invalid. a lowercase RFC 1123 label must consist of" },
    // An empty admin token would write a kubeconfig without credentials (every request 401).
    { args: ['control-center', '--token', ''], msg: "option '--token <token>' argument '' is invalid. must be one or more visible ASCII characters" },
    { args: ['control-center', '--scheduler-token', 'a b'], msg: "option '--scheduler-token <token>' argument 'a b' is invalid. must be one or more visible ASCII characters" },
    // One token cannot be two identities (the admin's would win).
    { args: ['control-center', '--token', 'same', '--scheduler-token', 'same'], msg: 'error: --scheduler-token must differ from --token' },
    { args: ['control-center', '--kubeconfig-server', 'notaurl'], msg: `option '--kubeconfig-server <url>' argument 'notaurl' is invalid. must be a URL such as https://hcc.example.com:6443, got "notaurl"` },
    { args: ['control-center', '--kubeconfig-server', 'https://cc.example.com:6443/api'], msg: "option '--kubeconfig-server <url>' argument 'https://cc.example.com:6443/api' is invalid. must be an http(s) URL of a host and port only" },
    { args: ['syncer', '--push', '--name', 'm1'], msg: "error: --name names the one cluster of a pull-mode syncer; --push serves every Push-mode ManagementCluster: give one or the other\nSee 'hcc syncer --help' for usage." },
    { args: ['syncer'], msg: "error: --name is required (or use --push)\nSee 'hcc syncer --help' for usage." },
    { args: ['syncer', '--name', 'm1', '--capacity', 'x'], msg: "option '--capacity <n>' argument 'x' is invalid. must be an integer >= 0 and <= 2147483647" },
    { args: ['syncer', '--name', 'm1', '--capacity', '100000000000'], msg: "option '--capacity <n>' argument '100000000000' is invalid. must be an integer >= 0 and <= 2147483647" },
    { args: ['syncer', '--name', 'm1', '--heartbeat-interval', '-5'], msg: "option '--heartbeat-interval <seconds>' argument '-5' is invalid. must be a number >= 0.5" },
    // Longer than an hour is no heartbeat (and past ~24.8 days Node's timers would fire at once).
    { args: ['syncer', '--name', 'm1', '--heartbeat-interval', '4000'], msg: "option '--heartbeat-interval <seconds>' argument '4000' is invalid. must be a number >= 0.5 and <= 3600" },
    { args: ['up', '--heartbeat-interval', '86400'], msg: "option '--heartbeat-interval <seconds>' argument '86400' is invalid. must be a number >= 0.5 and <= 3600" },
    { args: ['syncer', '--name', 'm1', '--take-over-from', 'a b'], msg: `option '--take-over-from <ids>' argument 'a b' is invalid. "a b" is not a control center ID (the uid of its kube-system namespace, e.g. 0b6f5c1e-3f0a-4c41-9d35-2f7d1a8e4b21)` },
    { args: ['syncer', '--name', 'm1', '--take-over-from', 'x,'], msg: `option '--take-over-from <ids>' argument 'x,' is invalid. "" is not a control center ID` },
    { args: ['syncer', '--name', 'm1', '--workers', '0'], msg: "option '--workers <n>' argument '0' is invalid. must be an integer >= 1" },
    { args: ['management-cluster', '--port', '-1'], msg: "option '--port <port>' argument '-1' is invalid." },
    { args: ['hypershift-sim', '--available-delay', 'soon'], msg: "option '--available-delay <ms>' argument 'soon' is invalid. must be an integer >= 0" },
    { args: ['hypershift-sim', '--supported-versions', 'abc'], msg: "option '--supported-versions <list>' argument 'abc' is invalid. must be a comma-separated list of major.minor versions" },
    { args: ['syncer', '--name', 'm1', '--labels', 'bad key!=v'], msg: `option '--labels <k=v,...>' argument 'bad key!=v' is invalid. key "bad key!": name part must consist of alphanumeric characters` },
    { args: ['syncer', '--name', 'm1', '--labels', 'a=b,,c'], msg: `option '--labels <k=v,...>' argument 'a=b,,c' is invalid. want key=value[,key=value...], got "c"` },
    { args: ['syncer', '--name', 'm1', '--labels', 'tier=no way'], msg: `option '--labels <k=v,...>' argument 'tier=no way' is invalid. value "no way": a valid label must be` },
    { args: ['syncer', '--name', 'm1', '--platforms', 'AWS,Foo'], msg: `option '--platforms <list>' argument 'AWS,Foo' is invalid. unknown platform "Foo": want one of AWS` },
    { args: ['up', '--platforms', 'Foo'], msg: `option '--platforms <list>' argument 'Foo' is invalid. unknown platform "Foo"` },
    { args: ['up', '--platforms', 'AWS,AWS,'], msg: `option '--platforms <list>' argument 'AWS,AWS,' is invalid. platform "AWS" is listed twice` },
    { args: ['syncer', '--name', 'm1', '--platforms', 'Agent, Agent'], msg: `option '--platforms <list>' argument 'Agent, Agent' is invalid. platform "Agent" is listed twice` },
    { args: ['syncer', '--name', 'm1', '--metrics-host', 'no-such-host.invalid'], msg: "option '--metrics-host <host>' argument 'no-such-host.invalid' is invalid. the name does not resolve" },
    // Node's recursive mkdir loops forever under /proc; the state dir is made one level at a time.
    { args: ['up', '--state-dir', '/proc/hcc-no-such-dir'], msg: "the state dir /proc/hcc-no-such-dir cannot be created (ENOENT: no such file or directory, mkdir '/proc/hcc-no-such-dir'): give a writable one with --state-dir" },
    { args: ['up', '--state-dir', '/etc/passwd/x'], msg: "the state dir /etc/passwd/x cannot be created (ENOTDIR: not a directory, mkdir '/etc/passwd/x'): give a writable one with --state-dir" },
    { args: ['control-center', '--data-dir', '/proc/hcc-no-such-dir/data', '--kubeconfig', 'k'], msg: "ENOENT: no such file or directory, mkdir '/proc/hcc-no-such-dir'" },
    // Each case runs in a temp dir of its own: they run a few at a time (each is one short CLI process).
  ])('refuses hcc $args: exit 1 with one line, nothing written', async ({ args, msg }, { expect }) => {
    const t = tempDir('hcc-flags-');
    try {
      const r = await run(args, t.dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(msg);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(existsSync(path.join(t.dir, '.hcc'))).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it('refuses hcc up with a state dir inside the state dir of a running hcc up, before writing anything there', async () => {
    const t = tempDir('hcc-nested-');
    // A live process holding the outer state dir's up.lock stands in for a running hcc up.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const outer = path.join(t.dir, 'outer');
      mkdirSync(outer);
      writeFileSync(path.join(outer, 'up.lock'), `${holder.pid}\n`);
      const nested = path.join(outer, 'data');
      const r = await run(['up', '--state-dir', nested], t.dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`hcc: the state directory ${nested} is inside ${outer}, the state directory of the running hcc up (pid ${holder.pid}): use a --state-dir outside it`);
      expect(existsSync(nested)).toBe(false);
    } finally {
      holder.kill();
      t.cleanup();
    }
  });

  it('names the data dir another process holds, the port another process listens on, and the help of a host that does not resolve', async () => {
    const t = tempDir('hcc-flags-');
    const first = await startControlCenterProcess({ dir: t.dir });
    const data = path.join(t.dir, 'data');
    try {
      const port = new URL(first.url).port;
      const held = spawnSync(process.execPath, [hccBin, 'control-center', '--data-dir', data, '--port', '0', '--kubeconfig', path.join(t.dir, 'k2')], { cwd: t.dir, encoding: 'utf8', timeout: 20_000 });
      expect(held.status).toBe(1);
      expect(held.stderr).toContain(`hcc: the data directory ${data} is in use by another hcc process (it holds the directory's LOCK file; stop it, or give this one another --data-dir)`);
      const busy = spawnSync(process.execPath, [hccBin, 'control-center', '--data-dir', path.join(t.dir, 'other'), '--port', port, '--kubeconfig', path.join(t.dir, 'k3')], { cwd: t.dir, encoding: 'utf8', timeout: 20_000 });
      expect(busy.status).toBe(1);
      expect(busy.stderr).toContain(`address already in use 127.0.0.1:${port}; another process listens there: choose another --port`);
      const host = spawnSync(process.execPath, [hccBin, 'control-center', '--host', 'no-such-host.invalid', '--kubeconfig', path.join(t.dir, 'k4')], { cwd: t.dir, encoding: 'utf8', timeout: 20_000 });
      expect(host.status).toBe(1);
      expect(host.stderr).toContain("See 'hcc control-center --help' for usage.");
      for (const r of [held, busy, host]) expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await first.stop();
      t.cleanup();
    }
  });

  it('at --log-level debug, logs each API request (verb, URI, user, user agent, code, latency), as kube-apiserver does at -v=3', async () => {
    const cc = await startControlCenterProcess({ extraArgs: ['--log-level', 'debug'] });
    try {
      const r = await kubectl('1.35', cc.kubeconfig, ['get', 'configmaps', '-n', 'default', 'nosuch']);
      expect(r.code).not.toBe(0);
      const line = await waitFor('the HTTP line of the GET', () =>
        cc.output().split('\n').find((l) => l.includes('"msg":"HTTP"') && l.includes('/api/v1/namespaces/default/configmaps/nosuch')),
      10_000);
      expect(JSON.parse(line)).toMatchObject({ level: 20, verb: 'get', uri: '/api/v1/namespaces/default/configmaps/nosuch', user: 'admin', code: 404, srcIP: '127.0.0.1' });
      expect(JSON.parse(line).userAgent).toMatch(/^kubectl\//);
    } finally {
      await cc.stop();
    }
  });

  it('says why a data dir cannot be opened (LevelDB\'s own reason, not only "Database failed to open")', () => {
    const t = tempDir('hcc-flags-');
    try {
      // A damaged data dir: CURRENT names a MANIFEST that is not there.
      const data = path.join(t.dir, 'data');
      mkdirSync(data);
      writeFileSync(path.join(data, 'CURRENT'), 'MANIFEST-000009\n');
      const r = spawnSync(process.execPath, [hccBin, 'control-center', '--data-dir', data, '--kubeconfig', path.join(t.dir, 'k')], { cwd: t.dir, encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`hcc: Database failed to open: `);
      expect(r.stderr).toContain(`${path.join(data, 'MANIFEST-000009')}: No such file or directory`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      t.cleanup();
    }
  });

  it("names the management cluster's kubeconfig flag when that file is missing (not the control center's)", () => {
    const t = tempDir('hcc-flags-');
    try {
      const cc = path.join(t.dir, 'cc.kubeconfig');
      writeFileSync(cc, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
      const r = spawnSync(process.execPath, [hccBin, 'syncer', '--name', 'm1', '--kubeconfig', cc, '--management-kubeconfig', path.join(t.dir, 'missing.kubeconfig')], { cwd: t.dir, encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`the management cluster's kubeconfig ${path.join(t.dir, 'missing.kubeconfig')} (--management-kubeconfig) does not exist`);
      expect(r.stderr).not.toContain('start the control center first');
    } finally {
      t.cleanup();
    }
  });

  it('a control center whose admin kubeconfig cannot be written says which one, and writes no kubeconfig at all', () => {
    const t = tempDir('hcc-flags-');
    try {
      // A regular file where the kubeconfig's directory should be.
      writeFileSync(path.join(t.dir, 'file'), '');
      const admin = path.join(t.dir, 'file', 'admin.kubeconfig');
      const r = spawnSync(process.execPath, [hccBin, 'control-center', '--port', '0', '--data-dir', path.join(t.dir, 'data'), '--kubeconfig', admin, '--scheduler-kubeconfig', path.join(t.dir, 'scheduler.kubeconfig')], { cwd: t.dir, encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`cannot write the admin kubeconfig ${admin}: `);
      expect(existsSync(path.join(t.dir, 'scheduler.kubeconfig'))).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it('prints its help and exits 0 when run without arguments, as kubectl does', () => {
    const r = spawnSync(process.execPath, [hccBin], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: hcc [options] [command]');
    expect(r.stdout).toContain('control-center');
  });

  it('refuses an HCC_LOG_LEVEL pino does not know, naming the variable', () => {
    const r = spawnSync(process.execPath, [hccBin, 'control-center'], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, HCC_LOG_LEVEL: 'loud' } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("option '--log-level <level>' value 'loud' from env 'HCC_LOG_LEVEL' is invalid.");
  });

  it.each([
    { env: 'warn', args: [], infoLines: false },
    { env: 'warn', args: ['--log-level', 'info'], infoLines: true }, // the flag wins over the variable
    { env: 'WARN', args: [], infoLines: false }, // any case
    { env: 'info', args: ['--log-level', 'Warn'], infoLines: false },
  ])('HCC_LOG_LEVEL=$env with $args: info lines $infoLines', async ({ env, args, infoLines }) => {
    const { out } = await controlCenterStartLog(args, { HCC_LOG_LEVEL: env }, 500);
    expect(out.includes('"level":30')).toBe(infoLines);
  }, 60_000);

  it.each([
    { args: ['--no-tls'], warned: true },
    { args: ['--no-tls', '--anonymous'], warned: false },
    { args: [], warned: false },
  ])('control center with $args: warns that kubectl sends no token over plain HTTP: $warned', async ({ args, warned }) => {
    const { out, kubeconfig } = await controlCenterStartLog(args, {}, 300);
    const warning = out.split('\n').find((l) => l.includes('do not send a bearer token over plain HTTP'));
    expect(!!warning).toBe(warned);
    if (warned) expect(JSON.parse(warning!)).toMatchObject({ level: 40, kubeconfig });
  }, 60_000);

  it.each([
    { args: ['--anonymous', '--host', '0.0.0.0'], warned: true },
    { args: ['--anonymous'], warned: false },
  ])('control center with $args: warns that --anonymous is open to anyone off loopback: $warned', async ({ args, warned }) => {
    const { out } = await controlCenterStartLog(args, {}, 300);
    const warning = out.split('\n').find((l) => l.includes('--anonymous on --host'));
    expect(!!warning).toBe(warned);
    if (warned) expect(JSON.parse(warning!)).toMatchObject({ level: 40, host: '0.0.0.0' });
  }, 60_000);
});

/**
 * Starts `hcc control-center` with `args` (and `env` added) on a temp dir, waits until it has
 * written its admin kubeconfig and `settleMs` more, stops it, and returns its stdout (the log)
 * and the kubeconfig's path (removed with the dir).
 */
async function controlCenterStartLog(args: string[], env: Record<string, string>, settleMs: number): Promise<{ out: string; kubeconfig: string }> {
  const t = tempDir('hcc-cc-log-');
  const kubeconfig = path.join(t.dir, 'admin.kubeconfig');
  const proc = spawn(process.execPath, [hccBin, 'control-center', '--port', '0', '--data-dir', path.join(t.dir, 'data'), '--kubeconfig', kubeconfig, '--scheduler-kubeconfig', path.join(t.dir, 's.kubeconfig'), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await waitFor('the control center to write its kubeconfig', () => existsSync(kubeconfig), 30_000);
    await new Promise((r) => setTimeout(r, settleMs));
  } finally {
    await stopProcess(proc);
    t.cleanup();
  }
  return { out, kubeconfig };
}
