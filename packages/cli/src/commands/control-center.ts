/**
 * `hcc control-center`: the Kubernetes-compatible API server holding virtual HostedClusters,
 * NodePools and ManagementClusters.
 */
import { isIPv4 } from 'node:net';
import { stateDirConflict } from '../state-dir-lock.js';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { allCRDs, SystemNamespace } from '@hcc/crds';
import { defaultValidationWorkers, startControlCenter } from '@hcc/control-center';
import { createLogger, logLevelOption } from '../logging.js';
import { authorizerFromFile } from '../authorization.js';
import { catchShutdown, notifyReady } from '../lifecycle.js';
import { existingFileArg, exitOnHostProblem, hostArg, numberArg, portArg, timerSecondsArg, serverUrlArg, subjectAltNamesArg, tokenArg, pathArg } from '../options.js';

/** `--validation-workers`: an integer from 0 to 64. */
function parseWorkerCount(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 64) throw new InvalidArgumentError(`must be an integer from 0 to 64, got "${value}"`);
  return n;
}

/**
 * `--event-ttl`: a Go-style duration (`1h`, `30m`, `90s`, `1h30m`, `0`) or a number of seconds.
 * @returns milliseconds
 */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const m = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$/.exec(v);
  if (!v || !m || m.slice(1).every((x) => x === undefined)) throw new InvalidArgumentError(`not a duration (e.g. 1h, 30m, 90s, 1h30m, or seconds), got "${value}"`);
  const [h, min, s, ms] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number];
  return Math.round(((h * 60 + min) * 60 + s) * 1000 + ms);
}

/** `--etcd-endpoints`: comma-separated etcd client URLs. */
function parseEndpoints(value: string): string[] {
  const endpoints = value.split(',').map((x) => x.trim()).filter(Boolean);
  if (endpoints.length === 0) throw new InvalidArgumentError('needs at least one etcd client URL, e.g. http://127.0.0.1:2379');
  // TLS to etcd (https, client certificates) is an EtcdStore option without flags so far.
  for (const e of endpoints) if (!/^http:\/\/[^/]+\/?$/.test(e)) throw new InvalidArgumentError(`not a plain-HTTP etcd client URL (http://host:port): "${e}"`);
  return endpoints;
}

/** The `hcc control-center` command: its action serves until SIGINT or SIGTERM, and sends a parent the ready message. */
export function controlCenterCommand(): Command {
  return new Command('control-center')
    .description('run the control center API server (use it with kubectl)')
    .option('--data-dir <dir>', 'directory for the level database (and the TLS files)', pathArg, '.hcc/control-center')
    .addOption(new Option('--storage <kind>', 'where objects live: level (embedded, one process) or etcd (shared by several control centers)').choices(['level', 'etcd']).default('level'))
    .addOption(new Option('--etcd-endpoints <urls>', 'etcd client URLs, comma-separated (with --storage etcd)').argParser(parseEndpoints).default(['http://127.0.0.1:2379'], 'http://127.0.0.1:2379'))
    .option('--etcd-prefix <prefix>', 'etcd key prefix of every object (with --storage etcd)', '/hcc')
    .option('--host <host>', 'address to listen on', hostArg, '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free port)', portArg, 6443)
    .option('--kubeconfig <path>', 'where to write the admin kubeconfig', pathArg, '.hcc/admin.kubeconfig')
    .option('--kubeconfig-server <url>', 'server URL to write into the kubeconfig (default: the listen address; use with --host 0.0.0.0 and --tls-san)', serverUrlArg)
    .option('--token <token>', 'admin bearer token (generated when absent)', tokenArg)
    .option('--anonymous', 'accept requests without a bearer token, with full rights (loopback experiments only)')
    .option('--scheduler-kubeconfig <path>', "where to write the scheduler's kubeconfig (its identity may place HostedClusters)", pathArg, '.hcc/scheduler.kubeconfig')
    .option('--scheduler-token <token>', "the scheduler's bearer token (generated into <data-dir>/pki/scheduler.token when absent; give replicas on one etcd the same one)", tokenArg)
    .option('--token-file <file>', 'static token file with more users: token,user,uid,"group1,group2" per line', existingFileArg)
    .option('--authorization-policy <file>', 'RBAC manifests (ClusterRole, Role and their bindings) limiting what non-admin users may do (default: every authenticated user may do everything)', pathArg)
    .option('--no-tls', 'serve plain HTTP instead of HTTPS (loopback testing only)')
    .option('--tls-san <names>', 'extra DNS names or IPs for the serving certificate, comma-separated', subjectAltNamesArg)
    .option('--accept-storage-loss', 'start even when the data dir shows lost or damaged committed writes (refused otherwise): serve what is left, with resourceVersions going on after the highest one handed out before')
    .option('--no-install-crds', 'do not install the HostedCluster, NodePool and ManagementCluster CRDs')
    .option('--bookmark-interval <seconds>', 'interval of watch BOOKMARK events', timerSecondsArg(), 10)
    .option('--watch-history <events>', 'how many past events a watch can resume from (older resourceVersions get 410 Expired)', numberArg({ integer: true, min: 1 }), 100_000)
    .option('--watch-history-bytes <bytes>', 'most JSON those events may hold together, oldest dropped first (bounds the memory of objects written often)', numberArg({ integer: true, min: 1 }), 64 * 1024 * 1024)
    .option('--event-ttl <duration>', 'how long an Event lives after its last write, as kube-apiserver\'s --event-ttl; 0 keeps Events forever (default: 1h)', parseDuration)
    .option(
      '--validation-workers <n>',
      'worker threads that check new HostedClusters, NodePools and other custom resources against their schema and CEL rules, beside the thread serving requests (0: on that thread)',
      parseWorkerCount,
      defaultValidationWorkers(),
    )
    .addOption(logLevelOption())
    .action(async (o, cmd: Command) => {
      // One token, two identities: the admin's would win and the scheduler could not be told apart.
      if (o.schedulerToken !== undefined && o.schedulerToken === o.token) cmd.error('error: --scheduler-token must differ from --token');
      const conflict = stateDirConflict({ '--kubeconfig': o.kubeconfig, '--scheduler-kubeconfig': o.schedulerKubeconfig, ...(o.storage === 'etcd' ? {} : { '--data-dir': o.dataDir }) });
      if (conflict) cmd.error(conflict);
      await exitOnHostProblem(o.host, '--host <host>', 'control-center');
      const log = createLogger('control-center', o.logLevel);
      // client-go (kubectl) never sends a bearer token over plain HTTP: the admin kubeconfig would only get 401s.
      if (!o.tls && !o.anonymous) {
        log.warn({ kubeconfig: path.resolve(o.kubeconfig) }, '--no-tls without --anonymous: kubectl and other client-go clients do not send a bearer token over plain HTTP, so they get 401 Unauthorized with this kubeconfig; add --anonymous (loopback only) or serve HTTPS');
      }
      // --anonymous grants every request without a token full rights: meant for loopback only.
      if (o.anonymous && !isLoopbackHost(o.host)) {
        log.warn({ host: o.host }, `--anonymous on --host ${o.host}, not a loopback address: anyone who can reach this port may read and change everything, Secrets included, without a token; use it on 127.0.0.1 or ::1 only`);
      }
      const shutdown = catchShutdown(log);
      const cc = await startControlCenter({
        dataDir: path.resolve(o.dataDir),
        host: o.host,
        port: o.port,
        kubeconfigPath: path.resolve(o.kubeconfig),
        kubeconfigServer: o.kubeconfigServer,
        adminToken: o.token,
        allowAnonymous: !!o.anonymous,
        schedulerKubeconfigPath: path.resolve(o.schedulerKubeconfig),
        schedulerToken: o.schedulerToken,
        tokenFile: o.tokenFile ? path.resolve(o.tokenFile) : undefined,
        authorizer: authorizerFromFile(o.authorizationPolicy),
        tls: o.tls,
        tlsSANs: o.tlsSan ?? [],
        crds: o.installCrds ? allCRDs : [],
        virtualHostedClusters: true,
        namespaces: [SystemNamespace],
        watch: { bookmarkIntervalMs: o.bookmarkInterval * 1000 },
        historyCapacity: o.watchHistory,
        historyBytes: o.watchHistoryBytes,
        eventTTLMs: o.eventTtl,
        validationWorkers: o.validationWorkers,
        etcd: o.storage === 'etcd' ? { endpoints: o.etcdEndpoints, prefix: o.etcdPrefix } : undefined,
        logger: log,
        acceptStorageLoss: !!o.acceptStorageLoss,
        onStorageFailure: (err) =>
          shutdown.fail(err, o.storage === 'etcd' ? 'storage failed: exiting, so that a restart lists etcd again' : 'storage failed: exiting, so that a restart reopens the data dir (no acknowledged write is lost)'),
      });
      notifyReady({ type: 'ready', name: 'control-center', url: cc.url, kubeconfig: path.resolve(o.kubeconfig) });
      shutdown.serving(() => cc.close());
    });
}

/**
 * Whether `host` (a `--host` value) is a loopback address: `localhost`, 127.0.0.0/8, `::1`, or
 * 127.x written as an IPv4-mapped IPv6 address. The wildcard addresses (`0.0.0.0`, `::`) and any
 * other name are not.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIPv4(v4) && v4.startsWith('127.');
}
