/**
 * `hcc up`: everything on one machine, in the foreground until SIGINT/SIGTERM — the control
 * center, the scheduler, N embedded management clusters `mgmt-1`…`mgmt-N` (API server +
 * HyperShift CRDs + hypershift-sim each) and their syncers, as separate processes. Writes
 * `DIR/admin.kubeconfig`, `DIR/management-clusters/mgmt-I.kubeconfig`, logs to `DIR/logs/`.
 * In Pull mode each syncer runs as its own control-center user `hcc:syncer:mgmt-I` (tokens in
 * `DIR/syncer-tokens.csv`, kubeconfigs `DIR/syncers/mgmt-I.kubeconfig`), which the control center
 * keeps to what is placed on mgmt-I, as a deployed syncer should run.
 */
import { runningUpOwning, UpLockFile, upLockHolder } from '../state-dir-lock.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { isAlreadyExists, isNotFound, loadKubeconfig, RestClient, ensureDir, writeFileAtomic, writeKubeconfig } from '@hcc/client';
import { ControlCenterAPIVersion, LeaseResource, ManagementClusterResource, NamespaceResource, ConditionReady, findCondition, SecretResource, SyncersGroup, syncerUserName, SystemNamespace, type KubeObject, type ManagementCluster } from '@hcc/crds';
import { createLogger, logLevelOption } from '../logging.js';
import { capacityArg, delayMsArg, heartbeatIntervalArg, numberArg, pathArg, timerSecondsArg } from '../options.js';
import { Supervisor } from '../supervisor.js';
import { takeOverEarlySignals, watchNpmParent } from '../lifecycle.js';
import { loadSchedulerConfig } from '@hcc/scheduler';
import { parsePlatforms, platformsArg } from './syncer.js';

/**
 * What each child runs: the `hcc` command itself (bin/hcc.js), which holds a SIGINT/SIGTERM that
 * comes while its modules load until the command takes the signal over, so a Ctrl-C during
 * `hcc up`'s start stops every child cleanly instead of killing one mid-start (dist/main.js
 * directly would die of the signal in its first ~0.3 s).
 */
const entry = fileURLToPath(new URL('../../bin/hcc.js', import.meta.url));

/** Most embedded management clusters `hcc up` starts: each is an API server and a syncer process (~100 MB together). */
export const MaxManagementClusters = 100;

/** How many management clusters (or syncers) start at once; between batches a signal can stop the start. */
const StartBatch = 4;

/**
 * Runs `fn` over `items`, `size` at a time, in order; stops before the next batch once `abort`
 * fires (rejecting with its reason), so Ctrl-C during a long start is acted on.
 */
async function inBatches<T>(items: readonly string[], size: number, abort: AbortSignal | undefined, fn: (item: string) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i += size) {
    abort?.throwIfAborted();
    out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  }
  return out;
}

/**
 * Gives each Pull-mode syncer its own control-center identity, `hcc:syncer:<name>` in
 * `hcc:syncers` (restricted to what is placed on its cluster): writes `DIR/syncer-tokens.csv`
 * (the control center's `--token-file`, a new random token per cluster at every start, mode
 * 0600) and returns the tokens by cluster name.
 */
function writeSyncerTokens(file: string, names: readonly string[]): Map<string, string> {
  const tokens = new Map(names.map((n) => [n, randomBytes(24).toString('hex')]));
  writeFileAtomic(file, [...tokens].map(([n, t]) => `${t},${syncerUserName(n)},hcc-up-syncer-${n},"${SyncersGroup}"\n`).join(''), 0o600);
  return tokens;
}

/**
 * Takes `DIR/up.lock` (holding this pid) so two `hcc up` never share a state dir; a lock left by
 * a process that no longer runs is taken over.
 * @throws Error when another live hcc up holds it
 */
function lockStateDir(dir: string): void {
  const lock = path.join(dir, UpLockFile);
  const pid = upLockHolder(dir);
  if (pid !== undefined) throw new Error(`the state directory ${dir} is in use by another hcc up (pid ${pid}); stop it or use another --state-dir`);
  writeFileSync(lock, `${process.pid}\n`);
  process.once('exit', () => {
    try {
      if (readFileSync(lock, 'utf8').trim() === String(process.pid)) unlinkSync(lock);
    } catch {
      // gone already
    }
  });
}

/** Options of {@link runUp}. */
export interface UpOptions {
  stateDir: string;
  managementClusters: number;
  capacity: number;
  /** Whether `--capacity` was given (else a restarted syncer is not told a default it would warn about). */
  capacityGiven?: boolean;
  platforms?: string;
  heartbeatInterval: number;
  /** The scheduler's `--heartbeat-grace`, in seconds (default: the scheduler's, 40). */
  heartbeatGrace?: number;
  availableDelay: number;
  logLevel: string;
  /** Pull: one syncer process per management cluster; Push: one `hcc syncer --push` for all. */
  mode: 'Pull' | 'Push';
  /** Syncers copy newer HyperShift CRDs from their management clusters up. */
  pullCrds?: boolean;
  /** Scheduler configuration file (profiles, plugins, scale-out signal). */
  schedulerConfig?: string;
  /** Start the control center and management clusters with `--accept-storage-loss`. */
  acceptStorageLoss?: boolean;
}

/**
 * The port to start a server on whose kubeconfig an earlier `hcc up` wrote in this state dir: the
 * port in that kubeconfig's server URL when it is free on loopback again, so kubeconfigs copied or
 * merged elsewhere (an external syncer's, `~/.kube/config`) stay valid across restarts, as a kind
 * cluster keeps its API server port; else `0` (any free port). Never throws.
 * @param kubeconfig - path of the kubeconfig (absent on a first start)
 * @returns `port`: a port number as a string, `'0'` for any; `taken`: the earlier port when it is
 *   taken now (the server moves, and copies of its kubeconfig need the new one)
 */
export async function previousPort(kubeconfig: string): Promise<{ port: string; taken?: number }> {
  let port: number;
  try {
    const url = new URL(loadKubeconfig(kubeconfig).server);
    port = Number(url.port);
    if (!['127.0.0.1', 'localhost'].includes(url.hostname) || !Number.isInteger(port) || port < 1 || port > 65535) return { port: '0' };
  } catch {
    return { port: '0' };
  }
  const free = await new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: '127.0.0.1', port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
  return free ? { port: String(port) } : { port: '0', taken: port };
}

/** The console line for a server that could not have its earlier port back (see {@link previousPort}). */
function movedNote(what: string, kubeconfig: string, taken: number | undefined, url: string | undefined): string | undefined {
  if (taken === undefined || !url) return undefined;
  return `! ${what}: port ${taken} (in ${path.basename(kubeconfig)} before) is taken by another process; now at ${url}: copies of ${path.basename(kubeconfig)} taken earlier need the new one`;
}

/**
 * `--mode`: Pull or Push, in either case.
 * @throws InvalidArgumentError otherwise
 */
function modeArg(value: string): 'Pull' | 'Push' {
  const v = value.toLowerCase();
  if (v === 'pull') return 'Pull';
  if (v === 'push') return 'Push';
  throw new InvalidArgumentError(`must be Pull or Push (any letter case), got "${value}"`);
}

const withPort = (args: string[], url: string | undefined): string[] => {
  if (!url) return args;
  const port = new URL(url).port;
  const out = [...args];
  const i = out.indexOf('--port');
  if (i >= 0) out[i + 1] = port;
  else out.push('--port', port);
  return out;
};

/** Why a start was aborted, for up.log: the abort's Error message (`SIGINT while starting`). */
const abortReason = (signal: AbortSignal): string => String((signal.reason as Error | undefined)?.message ?? signal.reason);

/** Starts everything; resolves with a stop function once every ManagementCluster is Ready. */
export async function runUp(o: UpOptions, print: (line: string) => void, abort?: AbortSignal): Promise<{ stop: (reason?: string) => Promise<void>; kubeconfig: string }> {
  const dir = path.resolve(o.stateDir);
  const logs = path.join(dir, 'logs');
  const mcDir = path.join(dir, 'management-clusters');
  // Fail on bad flags before anything is written to the state dir.
  parsePlatforms(o.platforms);
  if (o.schedulerConfig) loadSchedulerConfig(o.schedulerConfig);
  // Nor inside the state dir of another running hcc up (its data dir, say): its files would mix with that one's.
  const owner = runningUpOwning(path.dirname(path.resolve(dir)));
  if (owner) throw new Error(`the state directory ${dir} is inside ${owner.dir}, the state directory of the running hcc up (pid ${owner.pid}): use a --state-dir outside it`);
  try {
    ensureDir(logs);
    ensureDir(mcDir);
  } catch (err) {
    throw new Error(`the state dir ${dir} cannot be created (${(err as Error).message}): give a writable one with --state-dir`, { cause: err });
  }
  lockStateDir(dir);
  // The console shows progress lines; the supervisor's own JSON log goes next to the others.
  const log = createLogger('up', o.logLevel, path.join(logs, 'up.log'));
  // A process that keeps crashing leaves the fleet without it for good: stop everything and exit 1
  // (whatever supervises `hcc up` sees it), rather than run on half a fleet.
  const sup: Supervisor = new Supervisor(entry, logs, log, print, (name) => {
    print(`✗ stopping every process: ${name} could not be kept running`);
    void sup.stopAll(undefined, `${name} could not be kept running`).finally(() => process.exit(1));
  });
  // The start gives way to `abort` (SIGINT/SIGTERM while starting): every process started so far
  // is then stopped (the catch below) and runUp rejects with the abort reason. Once the start has
  // failed or been aborted, the branches still in flight print nothing more and the supervisor
  // starts nothing more.
  let ended = false;
  const say = (line: string) => {
    if (!ended && !abort?.aborted) print(line);
  };
  // (Called right after the start's abort check, so the signal has not fired yet; `p` always gets
  // a handler, so its own later failure is not an unhandled rejection.)
  const step = <T>(p: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(abort!.reason);
      abort?.addEventListener('abort', onAbort, { once: true });
      p.then(
        (v) => {
          abort?.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e) => {
          abort?.removeEventListener('abort', onAbort);
          reject(e);
        },
      );
    });
  const started = Date.now();
  const ll = ['--log-level', o.logLevel];
  const loss = o.acceptStorageLoss ? ['--accept-storage-loss'] : [];
  const adminKubeconfig = path.join(dir, 'admin.kubeconfig');
  const schedulerKubeconfig = path.join(dir, 'scheduler.kubeconfig');
  try {
    abort?.throwIfAborted(); // a signal while the modules loaded: start nothing
    // The control center and the management clusters do not need each other: they start
    // together. The scheduler needs only the control center; the syncers need both.
    say(`• starting the control center (data in ${path.join(dir, 'data')})`);
    const ccPort = await previousPort(adminKubeconfig);
    const names = Array.from({ length: o.managementClusters }, (_, i) => `mgmt-${i + 1}`);
    const syncerTokensFile = path.join(dir, 'syncer-tokens.csv');
    const syncerTokens = o.mode === 'Pull' ? writeSyncerTokens(syncerTokensFile, names) : undefined;
    const ccArgs = [
      'control-center', '--data-dir', path.join(dir, 'data', 'control-center'), '--port', ccPort.port, '--kubeconfig', adminKubeconfig, '--scheduler-kubeconfig', schedulerKubeconfig,
      ...(syncerTokens ? ['--token-file', syncerTokensFile] : []), ...loss, ...ll,
    ];
    say(`• starting ${names.length} embedded management cluster(s): ${names.join(', ')}`);
    const controlCenter = sup.start({ name: 'control-center', args: ccArgs, restartArgs: (r) => withPort(ccArgs.filter((a) => !loss.includes(a)), r.url) }).then((cc) => {
      say(`✓ control center serving at ${cc.url}`);
      const moved = movedNote('control center', adminKubeconfig, ccPort.taken, cc.url);
      if (moved) say(moved);
    });
    const managementClusters = inBatches(names, StartBatch, abort, async (name) => {
      const mcKubeconfig = path.join(mcDir, `${name}.kubeconfig`);
      const first = await previousPort(mcKubeconfig);
      // A loss is accepted at this start only, not again when the supervisor restarts the process.
      const args = (port = first.port, accept: string[] = loss) => [
        'management-cluster', '--name', name, '--data-dir', path.join(dir, 'data', name), '--port', port,
        '--kubeconfig', mcKubeconfig, '--available-delay', String(o.availableDelay), ...accept, ...ll,
      ];
      const r = await sup.start({ name, args: args(), restartArgs: (rd) => args(new URL(rd.url!).port, []) });
      say(`✓ ${name} serving at ${r.url}`);
      const moved = movedNote(name, mcKubeconfig, first.taken, r.url);
      if (moved) say(moved);
    });
    const scheduler = controlCenter.then(async () => {
      abort?.throwIfAborted();
      say('• starting the scheduler');
      await sup.start({
        name: 'scheduler',
        // One identity across restarts: a scheduler the supervisor restarts after a crash takes its
        // own Lease back at once instead of waiting out the dead process's lease duration (15 s).
        args: ['scheduler', '--kubeconfig', schedulerKubeconfig, '--id', `hcc-up-scheduler_${hostname()}`, ...(o.schedulerConfig ? ['--config', o.schedulerConfig] : []), ...(o.heartbeatGrace !== undefined ? ['--heartbeat-grace', String(o.heartbeatGrace)] : []), ...ll],
      });
      say('✓ scheduler running');
    });
    const syncers = Promise.all([controlCenter, managementClusters]).then(async () => {
      abort?.throwIfAborted();
      const forgotten = await forgetReplacedClusters(adminKubeconfig, mcDir, names);
      if (forgotten.length) say(`• ${forgotten.join(', ')}: a new cluster under the name (${forgotten.length > 1 ? 'their' : 'its'} data removed by hand): the old one's cluster ID and Lease cleared, so ${forgotten.length > 1 ? 'their syncers take' : 'its syncer takes'} the name; what is placed there is copied again`);
      abort?.throwIfAborted();
      if (o.mode === 'Push') {
        say(`• registering ${names.length} Push-mode management cluster(s) and starting one push syncer`);
        const cc = new RestClient(loadKubeconfig(adminKubeconfig));
        try {
          for (const name of names) {
            const mc = {
              apiVersion: ControlCenterAPIVersion,
              kind: 'ManagementCluster',
              metadata: { name },
              spec: {
                mode: 'Push',
                capacity: o.capacity,
                kubeconfigSecretRef: { name: `${name}-kubeconfig`, namespace: SystemNamespace, key: 'kubeconfig' },
                ...(o.platforms ? { platforms: parsePlatforms(o.platforms) } : {}),
                ...(o.pullCrds ? { pullCRDs: true } : {}),
              },
            };
            // An existing one keeps its capacity and platforms (set when first created, as in Pull
            // mode; stateDirNotes says so): only the mode, the kubeconfig and a pullCRDs this
            // start asks for are this start's (an undefined one is left out of the patch).
            const stored = await cc
              .create(ManagementClusterResource, undefined, mc)
              .catch((e) => (isAlreadyExists(e) ? cc.patch(ManagementClusterResource, undefined, name, { spec: { mode: mc.spec.mode, kubeconfigSecretRef: mc.spec.kubeconfigSecretRef, pullCRDs: mc.spec.pullCRDs } }, 'merge') : Promise.reject(e)));
            // Owned by its ManagementCluster: the garbage collector deletes it with the cluster.
            const owner = { apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', name, uid: String((stored.metadata as { uid?: string }).uid) };
            const kubeconfig = readFileSync(path.join(mcDir, `${name}.kubeconfig`));
            const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-kubeconfig`, namespace: SystemNamespace, ownerReferences: [owner] }, data: { kubeconfig: kubeconfig.toString('base64') } };
            await cc.create(SecretResource, SystemNamespace, secret).catch((e) => (isAlreadyExists(e) ? cc.update(SecretResource, SystemNamespace, secret) : Promise.reject(e)));
          }
        } finally {
          cc.close();
        }
        abort?.throwIfAborted();
        await sup.start({ name: 'syncer-push', args: ['syncer', '--push', '--kubeconfig', adminKubeconfig, '--heartbeat-interval', String(o.heartbeatInterval), ...(o.pullCrds ? ['--pull-crds'] : []), ...ll] });
      } else {
        const switched = await leavePushMode(adminKubeconfig, names);
        if (switched.length) say(`• ${switched.join(', ')} ${switched.length > 1 ? 'were' : 'was'} in Push mode (an earlier --mode Push start): now Pull, ${switched.length > 1 ? 'their' : 'its'} kubeconfig Secret${switched.length > 1 ? 's' : ''} deleted`);
        say(`• starting ${names.length} syncer(s), each as its own user hcc:syncer:<name>`);
        // The admin's connection with the syncer's own token.
        const admin = loadKubeconfig(adminKubeconfig);
        const syncerKubeconfig = (name: string) => {
          const file = path.join(dir, 'syncers', `${name}.kubeconfig`);
          writeKubeconfig(file, { server: admin.server, token: syncerTokens!.get(name)!, contextName: `hcc-syncer-${name}`, ...(admin.ca ? { ca: admin.ca } : {}) });
          return file;
        };
        await inBatches(names, StartBatch, abort, (name) =>
          sup.start({
            name: `syncer-${name}`,
            args: [
              'syncer', '--name', name, '--kubeconfig', syncerKubeconfig(name), '--management-kubeconfig', path.join(mcDir, `${name}.kubeconfig`),
              ...(o.capacityGiven === false ? [] : ['--capacity', String(o.capacity)]), '--heartbeat-interval', String(o.heartbeatInterval),
              ...(o.platforms ? ['--platforms', o.platforms] : []), ...(o.pullCrds ? ['--pull-crds'] : []), ...ll,
            ],
          }),
        );
      }
    });
    // The first failure (or the abort) ends the start; the catch below stops every process
    // started so far, and the supervisor refuses to start more.
    await step(
      Promise.all([controlCenter, managementClusters, scheduler, syncers]).catch((err: unknown) => {
        ended = true;
        throw err;
      }),
    );
    // Wait until every ManagementCluster reports Ready through the control center, from a
    // heartbeat of this start: on a state dir used before, the last run's Ready=True is still
    // there (until the heartbeat grace ends) though this run's syncer may never report (another
    // holds its Lease, say). Heartbeat stamps have whole seconds.
    const client = new RestClient(loadKubeconfig(adminKubeconfig));
    const deadline = Date.now() + 60_000;
    const since = Math.floor(started / 1000) * 1000;
    const beatSince = (mc: ManagementCluster | undefined) => Date.parse(mc?.status?.lastHeartbeatTime ?? '') >= since;
    const readyNow = (mc: ManagementCluster) => findCondition(mc.status?.conditions, ConditionReady)?.status === 'True' && beatSince(mc);
    let mcs: ManagementCluster[];
    for (;;) {
      abort?.throwIfAborted();
      mcs = (await client.list<ManagementCluster>(ManagementClusterResource).catch(() => ({ items: [] as ManagementCluster[] }))).items;
      const ready = mcs.filter((mc) => names.includes(mc.metadata.name!) && readyNow(mc));
      if (ready.length === names.length) break;
      if (Date.now() > deadline) {
        const notReady = names.filter((n) => !ready.some((r) => r.metadata.name === n)).map((n) => {
          const mc = mcs.find((m) => m.metadata.name === n);
          const cond = findCondition(mc?.status?.conditions, ConditionReady);
          const last = mc?.status?.lastHeartbeatTime;
          return `${n} (${!mc ? 'not registered' : beatSince(mc) ? `Ready=${cond?.status ?? 'unknown'} ${cond?.reason ?? ''}: ${cond?.message ?? ''}` : `no heartbeat since this start; last ${last ?? 'never'}`}; its log: ${path.join(dir, 'logs', o.mode === 'Push' ? 'syncer-push.log' : `syncer-${n}.log`)})`;
        });
        throw new Error(
          `management clusters not Ready after 60s: ${notReady.join(', ')}; if a syncer's log says another management cluster holds its Lease, the cluster behind that name changed: remove ${path.join(mcDir, 'NAME.cluster-id')} once its Lease has expired (a minute), or clear the registration as the README says (kubectl delete lease -n hcc-system NAME; kubectl patch mc NAME --subresource=status --type=merge -p '{"status":{"clusterID":null}}')`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    // --pull-crds: this start trusts its embedded clusters' CRDs for the fleet (an admin's choice,
    // spec.pullCRDs, which the syncers may not set when they register); each syncer sees it at
    // its next heartbeat interval.
    if (o.pullCrds && o.mode !== 'Push') {
      for (const name of names) await client.patch(ManagementClusterResource, undefined, name, { spec: { pullCRDs: true } }, 'merge');
    }
    client.close();
    print(`✓ ${names.length} management cluster(s) Ready (in ${((Date.now() - started) / 1000).toFixed(1)}s)`);
    for (const line of stateDirNotes(o, names, mcs, started)) print(line);
    recordClusterIDs(mcDir, names, mcs);
  } catch (err) {
    ended = true;
    await sup.stopAll(undefined, abort?.aborted ? abortReason(abort) : `start failed: ${(err as Error).message}`);
    throw err;
  }
  return { stop: (reason?: string) => sup.stopAll(undefined, reason), kubeconfig: adminKubeconfig };
}

/**
 * An embedded management cluster started afresh under a name registered earlier (its data dir
 * removed by hand): the ManagementCluster still carries the old cluster's ID, so its new syncer
 * would find the name held by another cluster (`SyncerConflict`) and never get Ready. `hcc up`
 * runs these clusters itself, so it does what the README tells an admin to do for a cluster
 * rebuilt under its name — deletes the Lease `hcc-system/<name>` and clears `status.clusterID` —
 * but only for a registration it knows was its own embedded cluster's: the ID it recorded in
 * `management-clusters/<name>.cluster-id` at an earlier start. Without a record (a state dir from
 * before it kept them), only a registration whose last heartbeat is older than its Lease (no
 * syncer holds it) is cleared, so a live cluster registered by hand under such a name is never
 * taken over. The record is written once the cluster is Ready in a start ({@link recordClusterIDs}).
 * A cluster's ID is the uid of its `kube-system` namespace (as the syncer reports it).
 * @param mcDir - where the embedded clusters' kubeconfigs are (and the records go)
 * @returns the names it cleared
 * @throws the client's errors other than NotFound
 */
async function forgetReplacedClusters(adminKubeconfig: string, mcDir: string, names: readonly string[]): Promise<string[]> {
  const cc = new RestClient(loadKubeconfig(adminKubeconfig));
  try {
    // One list; only a name registered with a cluster ID (a restart) costs a read of that cluster.
    const registered = (await cc.list<ManagementCluster>(ManagementClusterResource)).items.filter((mc) => names.includes(mc.metadata.name!) && mc.status?.clusterID);
    const cleared = await Promise.all(
      registered.map(async (mc) => {
        const name = mc.metadata.name!;
        const id = mc.status!.clusterID as string;
        const mcClient = new RestClient(loadKubeconfig(path.join(mcDir, `${name}.kubeconfig`)));
        const current = await mcClient.get<KubeObject>(NamespaceResource, undefined, 'kube-system').finally(() => mcClient.close());
        if (!current.metadata.uid || current.metadata.uid === id) return undefined;
        const recorded = recordedClusterID(mcDir, name);
        const lastMs = Date.parse(mc.status?.lastHeartbeatTime ?? '');
        const leaseMs = (mc.status?.leaseDurationSeconds ?? 40) * 1000;
        const ours = recorded !== undefined ? recorded === id : !(Date.now() - lastMs < leaseMs);
        if (!ours) return undefined;
        await cc.delete(LeaseResource, SystemNamespace, name).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
        await cc.patch(ManagementClusterResource, undefined, name, { status: { clusterID: null } }, 'merge', { subresource: 'status' });
        return name;
      }),
    );
    return cleared.filter((n): n is string => n !== undefined);
  } finally {
    cc.close();
  }
}

/**
 * Records, for {@link forgetReplacedClusters} at a later start, the cluster ID each of `names`
 * registered in this start (its syncer is Ready from a heartbeat of this start, so the ID is the
 * cluster's running now): `management-clusters/<name>.cluster-id`, rewritten when it changed.
 */
function recordClusterIDs(mcDir: string, names: readonly string[], mcs: readonly ManagementCluster[]): void {
  for (const name of names) {
    const id = mcs.find((mc) => mc.metadata.name === name)?.status?.clusterID as string | undefined;
    if (id && recordedClusterID(mcDir, name) !== id) writeFileAtomic(clusterIDRecord(mcDir, name), `${id}\n`);
  }
}

/** Where {@link recordClusterIDs} keeps `name`'s cluster ID. */
const clusterIDRecord = (mcDir: string, name: string) => path.join(mcDir, `${name}.cluster-id`);

/** The cluster ID recorded for `name`; undefined when there is no record or it holds no cluster ID (emptied, edited by hand). */
function recordedClusterID(mcDir: string, name: string): string | undefined {
  const file = clusterIDRecord(mcDir, name);
  const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text) ? text : undefined;
}

/**
 * A Pull-mode start on a state dir an earlier `--mode Push` start used: each of `names` whose
 * ManagementCluster says `spec.mode: Push` is switched to `Pull` (its `kubeconfigSecretRef`
 * removed), and the `hcc-system/<name>-kubeconfig` Secret that start wrote (the cluster's admin
 * credentials) is deleted, also when the cluster was switched to Pull by hand, as
 * karmada-agent sets a Cluster's `syncMode` to Pull when it registers it. Otherwise the cluster
 * would keep claiming a push syncer, and any `hcc syncer --push` would serve it beside its pull
 * syncer.
 * @param kubeconfig - the admin kubeconfig of the control center
 * @returns the names switched, in order
 * @throws ApiError when a read or write fails (other than the Secret already being gone)
 */
async function leavePushMode(kubeconfig: string, names: readonly string[]): Promise<string[]> {
  const cc = new RestClient(loadKubeconfig(kubeconfig));
  const switched: string[] = [];
  try {
    for (const name of names) {
      const mc = await cc.get<ManagementCluster>(ManagementClusterResource, undefined, name).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
      const ref = mc?.spec?.kubeconfigSecretRef;
      if (mc?.spec?.mode === 'Push') {
        await cc.patch(ManagementClusterResource, undefined, name, { spec: { mode: 'Pull', kubeconfigSecretRef: null } }, 'merge');
        switched.push(name);
      }
      // The Secret `hcc up --mode Push` wrote (that cluster's admin credentials), also when the
      // cluster was switched to Pull by hand; one another ManagementCluster still names is kept.
      const secret = `${name}-kubeconfig`;
      const stillNamed = mc?.spec?.mode !== 'Push' && ref?.name === secret && (ref.namespace || SystemNamespace) === SystemNamespace;
      if (!stillNamed) await cc.delete(SecretResource, SystemNamespace, secret).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    }
  } finally {
    cc.close();
  }
  return switched;
}

/**
 * Whether a ManagementCluster's syncer heartbeated after `sinceMs` (this start's beginning): a
 * syncer this start does not run, started by hand, still reports for it. (A recent heartbeat alone
 * says nothing: the syncer an earlier start ran was stopped moments before this one.)
 */
function heartbeatSince(mc: ManagementCluster, sinceMs: number): boolean {
  const at = Date.parse((mc.status as { lastHeartbeatTime?: string } | undefined)?.lastHeartbeatTime ?? '');
  return Number.isFinite(at) && at >= sinceMs;
}

/**
 * What a start on an existing state dir did not change, for the console (the syncers' logs say
 * it too, where nobody looks): settings given now that the ManagementClusters registered earlier
 * keep (`--capacity`, `--platforms` are set when a cluster is first created), and clusters
 * registered earlier that this start does not run (fewer `--management-clusters`), which will go
 * `Ready=False` and keep what is placed on them — unless another syncer still heartbeats for one
 * (started by hand: it heartbeated after this start began), which then stays Ready.
 * @param sinceMs - when this start began, ms since the epoch
 * @returns lines starting with `!`, none when there is nothing to say
 */
export function stateDirNotes(o: Pick<UpOptions, 'capacity' | 'capacityGiven' | 'platforms'>, names: readonly string[], mcs: readonly ManagementCluster[], sinceMs = Date.now()): string[] {
  const lines: string[] = [];
  const ours = mcs.filter((mc) => names.includes(mc.metadata.name!));
  const keptCapacity = o.capacityGiven !== false ? ours.filter((mc) => mc.spec?.capacity !== undefined && mc.spec.capacity !== o.capacity) : [];
  if (keptCapacity.length) {
    lines.push(`! --capacity ${o.capacity} not applied: ${keptCapacity.map((mc) => `${mc.metadata.name} keeps ${mc.spec?.capacity}`).join(', ')} (set when first created; change it with kubectl patch mc NAME --type=merge -p '{"spec":{"capacity":${o.capacity}}}')`);
  }
  if (o.platforms) {
    const want = [...parsePlatforms(o.platforms)!].sort().join(',');
    const kept = ours.filter((mc) => [...(mc.spec?.platforms ?? [])].sort().join(',') !== want);
    if (kept.length) lines.push(`! --platforms ${o.platforms} not applied: ${kept.map((mc) => `${mc.metadata.name} keeps ${mc.spec?.platforms?.join(',') || 'all'}`).join(', ')} (set when first created; change it with kubectl patch mc NAME --type=merge -p '{"spec":{"platforms":${JSON.stringify(want ? want.split(',') : [])}}}')`);
  }
  const notStarted = mcs.filter((mc) => !names.includes(mc.metadata.name!) && /^mgmt-\d+$/.test(mc.metadata.name!));
  // One whose syncer still heartbeats (started by hand, or by another hcc up) stays Ready.
  const served = notStarted.filter((mc) => heartbeatSince(mc, sinceMs));
  const left = notStarted.filter((mc) => !served.includes(mc));
  if (served.length) {
    const list = served.map((mc) => mc.metadata.name).join(', ');
    lines.push(`! ${list} registered earlier in this state dir but not started now (--management-clusters ${names.length}): another syncer reports for ${served.length === 1 ? 'it' : 'them'}, so ${served.length === 1 ? 'it stays' : 'they stay'} Ready while that syncer runs`);
  }
  if (left.length) {
    const list = left.map((mc) => mc.metadata.name).join(', ');
    const [it, goes, keeps, holds] = left.length === 1 ? ['it', 'goes', 'keeps', 'it holds'] : ['they', 'go', 'keep', 'they hold'];
    lines.push(`! ${list} registered earlier in this state dir but not started now (--management-clusters ${names.length}): ${it} ${goes} Ready=False and ${keeps} what is placed there; to retire: kubectl delete mc ${left.map((mc) => mc.metadata.name).join(' ')} --wait=false, then delete what ${holds} (README: Deleting, under Using the control center with kubectl)`);
  }
  return lines;
}

/**
 * The `hcc up` command: its action starts everything, then stays in the foreground until SIGINT, SIGTERM, SIGHUP or a
 * closed stdout, which stop every process (exit 0; 1 when stopping failed).
 */
export function upCommand(): Command {
  return new Command('up')
    .description('run everything locally: control center, scheduler, N embedded management clusters and their syncers (foreground; Ctrl-C stops all)')
    .option('--state-dir <dir>', 'state directory: data, logs, kubeconfigs', pathArg, '.hcc')
    .option('--management-clusters <n>', `how many embedded management clusters (mgmt-1..mgmt-N; each is two processes, ~100 MB)`, numberArg({ integer: true, min: 1, max: MaxManagementClusters }), 2)
    .option('--capacity <k>', 'HostedClusters each management cluster may hold (set when its ManagementCluster is first created; later: kubectl patch mc)', capacityArg, 50)
    .option('--platforms <list>', 'platforms the management clusters host, comma-separated (default: all; set when first created, like --capacity)', platformsArg)
    .option('--heartbeat-interval <seconds>', 'syncer heartbeat interval', heartbeatIntervalArg, 10)
    .option('--heartbeat-grace <seconds>', "the scheduler's: a management cluster whose last heartbeat is older is not Ready (a syncer's announced Lease, 4 heartbeat intervals, when longer)", timerSecondsArg(), 40)
    .option('--available-delay <ms>', 'how long the hypershift-sim takes to make a HostedCluster Available', delayMsArg, 2000)
    .option('--mode <mode>', 'Pull: a syncer process per management cluster; Push: one syncer next to the control center serves them all (either case)', modeArg, 'Pull')
    .option('--pull-crds', 'syncers copy newer HostedCluster/NodePool CRDs from their management clusters up to the control center (this start sets spec.pullCRDs on their ManagementClusters: it trusts their CRDs)')
    .option('--scheduler-config <file>', 'scheduler configuration file (profiles, plugins, scale-out signal)', pathArg)
    .option('--accept-storage-loss', 'start the control center and management clusters even when their data dirs show lost or damaged committed writes (refused otherwise)')
    .addOption(logLevelOption('log level of every process (logs go to STATE_DIR/logs)'))
    .action(async (opts, cmd: Command) => {
      const mode = opts.mode as 'Pull' | 'Push';
      // Once stdout is gone (`hcc up | head -2` after head exits: EPIPE), nothing more is printed
      // and everything stops as on SIGPIPE, which Node does not deliver: what a Go tool such as
      // `kubectl proxy` dies of, but with every process stopped and processes.json removed.
      let stdoutGone = false;
      const print = (l: string) => {
        if (!stdoutGone) process.stdout.write(`${l}\n`);
      };
      process.stdout.on('error', () => {
        stdoutGone = true;
        stop('SIGPIPE');
      });
      // Signals are caught from the start: during startup they abort it (every process started
      // so far is stopped), afterwards they stop everything.
      const starting = new AbortController();
      let up: Awaited<ReturnType<typeof runUp>> | undefined;
      let stopping = false;
      const stop = (sig: string) => {
        if (stopping) return;
        stopping = true;
        print(`\n• ${sig}: stopping every process`);
        if (!up) {
          starting.abort(new Error(`${sig} while starting`));
          return;
        }
        up.stop(sig).then(
          () => {
            print('✓ stopped');
            process.exit(0);
          },
          () => process.exit(1),
        );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
      // The terminal went away (ssh dropped, window closed): stop everything as on Ctrl-C, rather
      // than die at once and leave up.lock and processes.json behind.
      process.on('SIGHUP', () => stop('SIGHUP'));
      // Started by a parent with an IPC channel (a benchmark, a test harness): stop with it, as every
      // other hcc process does (lifecycle.ts), even when it is killed without a chance to signal us.
      if (process.send) process.on('disconnect', () => stop('parent-exit'));
      else watchNpmParent(() => stop('parent-exit'));
      const early = takeOverEarlySignals();
      if (early) stop(early);
      try {
        up = await runUp(
          {
            stateDir: opts.stateDir,
            managementClusters: opts.managementClusters,
            capacity: opts.capacity,
            capacityGiven: cmd.getOptionValueSource('capacity') === 'cli',
            platforms: opts.platforms,
            heartbeatInterval: opts.heartbeatInterval,
            heartbeatGrace: opts.heartbeatGrace,
            availableDelay: opts.availableDelay,
            logLevel: opts.logLevel,
            mode,
            pullCrds: !!opts.pullCrds,
            schedulerConfig: opts.schedulerConfig ? path.resolve(opts.schedulerConfig) : undefined,
            acceptStorageLoss: !!opts.acceptStorageLoss,
          },
          print,
          starting.signal,
        );
      } catch (err) {
        if (!starting.signal.aborted) throw err;
        print('✓ stopped');
        process.exit(0);
      }
      if (starting.signal.aborted) {
        // The signal came as the last step finished.
        await up.stop(abortReason(starting.signal));
        print('✓ stopped');
        process.exit(0);
      }
      print(`\nhcc is up. Try:\n  export KUBECONFIG=${up.kubeconfig}\n  kubectl get managementclusters\n\nLogs: ${path.resolve(opts.stateDir, 'logs')}. Press Ctrl-C to stop.`);
    });
}
