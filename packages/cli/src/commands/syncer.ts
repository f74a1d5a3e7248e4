/**
 * `hcc syncer`: the agent of one management cluster (pull mode: it runs in or next to that
 * cluster), or, with `--push`, the agent of every ManagementCluster with `spec.mode: Push`
 * (it runs next to the control center and reaches each cluster with the kubeconfig in its
 * `kubeconfigSecretRef`). Registers, heartbeats the budget, replicates what is placed on the
 * cluster and copies status up.
 */
import { Command, InvalidArgumentError } from 'commander';
import client from 'prom-client';
import { RestClient, serveOps } from '@hcc/client';
import { PlatformTypes, SystemNamespace } from '@hcc/crds';
import { readFileSync } from 'node:fs';
import { runPushSyncers, runSyncer, TakeOverFromFlag } from '@hcc/syncer';
import { createLogger, logLevelOption } from '../logging.js';
import { catchShutdown, notifyReady } from '../lifecycle.js';
import { connectionFor } from '../connection.js';
import { capacityArg, exitOnHostProblem, heartbeatIntervalArg, hostArg, labelsArg, managementClusterNameArg, numberArg, pathArg, portArg, syncerNameArg } from '../options.js';

/**
 * `--platforms` checked as commander parses it (a bad entry stops the command with the flag named);
 * the value stays the text given, {@link parsePlatforms} turns it into the list.
 * @throws InvalidArgumentError naming the unknown platform
 */
export function platformsArg(value: string): string {
  try {
    parsePlatforms(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return value;
}

/**
 * Parses a comma-separated platform list, checking each against HyperShift's platform types. A
 * platform listed twice is refused, as the ManagementCluster's `spec.platforms` (a set) would be.
 * @throws Error naming the unknown or repeated platform
 */
export function parsePlatforms(s: string | undefined): string[] | undefined {
  if (!s) return undefined;
  const list = s.split(',').map((p) => p.trim()).filter(Boolean);
  for (const [i, p] of list.entries()) {
    if (!(PlatformTypes as readonly string[]).includes(p)) throw new Error(`unknown platform "${p}": want one of ${PlatformTypes.join(', ')}`);
    if (list.indexOf(p) !== i) throw new Error(`platform "${p}" is listed twice`);
  }
  return list;
}

/**
 * `--take-over-from`: a comma-separated list of control center IDs (the uid of a control center's
 * kube-system namespace: letters, digits and `-`, as Kubernetes uids are); repeated, the lists add up.
 * @param previous - the IDs of the flag given before, if any
 * @returns the IDs, in order, without duplicates
 * @throws InvalidArgumentError naming the entry that is not an ID
 */
export function takeOverFromArg(value: string, previous?: string[]): string[] {
  const ids = value.split(',').map((s) => s.trim());
  for (const id of ids) {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/.test(id)) throw new InvalidArgumentError(`${JSON.stringify(id)} is not a control center ID (the uid of its kube-system namespace, e.g. 0b6f5c1e-3f0a-4c41-9d35-2f7d1a8e4b21)`);
  }
  // Given more than once (a Helm extraArgs list and a --set), the flag adds to the list.
  return [...new Set([...(previous ?? []), ...ids])];
}

/** Where a pod's service account token says the pod runs. */
const ServiceAccountNamespaceFile = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The namespace this process runs in as a pod (its service account's), or undefined outside a cluster. */
function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(ServiceAccountNamespaceFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The `hcc syncer` command: its action runs until SIGINT or SIGTERM, and sends a parent the ready message. */
export function syncerCommand(): Command {
  return new Command('syncer')
    .description('run the syncer of one management cluster (pull mode), or of every Push-mode ManagementCluster (--push)')
    .option('--name <name>', 'ManagementCluster name (a DNS label); required unless --push', syncerNameArg)
    .option('--kubeconfig <path>', 'kubeconfig of the control center', pathArg, '.hcc/admin.kubeconfig')
    .option('--management-kubeconfig <path>', 'kubeconfig of the management cluster (default: in-cluster service account)', pathArg)
    .option('--push', 'serve every ManagementCluster with spec.mode=Push from here, using the kubeconfig in its kubeconfigSecretRef')
    .option('--capacity <n>', 'most HostedClusters this cluster may hold (set when the syncer creates its ManagementCluster)', capacityArg, 50)
    .option('--platforms <list>', `platforms it can host, comma-separated (${PlatformTypes.join(', ')}); default all`, platformsArg)
    .option('--labels <k=v,...>', 'labels of the ManagementCluster (region, provider, ...)', labelsArg)
    .option('--pull-crds', 'copy the HostedCluster/NodePool CRDs of the management cluster up when they are newer, while an admin sets spec.pullCRDs on its ManagementCluster')
    .option('--heartbeat-interval <seconds>', 'between heartbeats; the scheduler calls the cluster lost no sooner than 4 intervals after the last one: its Lease duration, announced in status.leaseDurationSeconds', heartbeatIntervalArg, 10)
    .option('--workers <n>', 'concurrent workers per queue', numberArg({ integer: true, min: 1 }), 16)
    .option(`${TakeOverFromFlag} <ids>`, "IDs of control centers this one replaces (restored on a new data dir), comma-separated: their syncers' copies in the management cluster become this syncer's (an ID is the uid of that control center's kube-system namespace, named in the CopyBlocked Events and the syncer's log)", takeOverFromArg)
    .option('--presence-namespace <namespace>', "namespace in the management cluster of the syncer's presence Lease (created when missing; default: the namespace it runs in, in a cluster, else hcc-system)", managementClusterNameArg)
    .option('--metrics-host <host>', 'address of /metrics, /healthz and /readyz', hostArg, '127.0.0.1')
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz (0 picks a free port)', portArg, 0)
    .addOption(logLevelOption())
    .action(async (o, cmd: Command) => {
      // Flag errors as commander words its own (`error: ...`, then the usage hint).
      if (!o.push && !o.name) cmd.error('error: --name is required (or use --push)');
      if (o.push && o.name) cmd.error('error: --name names the one cluster of a pull-mode syncer; --push serves every Push-mode ManagementCluster: give one or the other');
      await exitOnHostProblem(o.metricsHost, '--metrics-host <host>', 'syncer');
      // Given on the command line (or by a Helm value): compared with an existing ManagementCluster.
      const explicit = (['capacity', 'platforms', 'labels'] as const).filter((k) => cmd.getOptionValueSource(k) === 'cli');
      const name = o.push ? 'push' : o.name;
      const log = createLogger(`syncer-${name}`, o.logLevel);
      const shutdown = catchShutdown(log);
      const upstream = new RestClient(connectionFor(o.kubeconfig, 'control center'), { userAgent: `hcc-syncer/${name}`, logger: log });
      const ac = new AbortController();
      const registry = new client.Registry();
      client.collectDefaultMetrics({ register: registry });
      const presenceNamespace: string = o.presenceNamespace ?? (o.push || o.managementKubeconfig ? undefined : inClusterNamespace()) ?? SystemNamespace;
      const common = { heartbeatIntervalMs: o.heartbeatInterval * 1000, workers: o.workers, pullCRDs: !!o.pullCrds, presenceNamespace, ...(o.takeOverFrom ? { takeOverFrom: o.takeOverFrom as string[] } : {}) };
      let downstream: RestClient | undefined;
      const s = o.push
        ? runPushSyncers({ upstream, logger: log, signal: ac.signal, metricsRegistry: registry, ...common })
        : runSyncer({
            cluster: o.name,
            upstream,
            downstream: (downstream = new RestClient(connectionFor(o.managementKubeconfig, 'management cluster', '--management-kubeconfig'), { userAgent: `hcc-syncer/${name}`, logger: log })),
            logger: log,
            signal: ac.signal,
            initialSpec: { capacity: o.capacity, platforms: parsePlatforms(o.platforms), mode: 'Pull' },
            labels: o.labels ?? {},
            explicit,
            metricsRegistry: registry,
            ...common,
          });
      const ops = await serveOps({ host: o.metricsHost, port: o.metricsPort, metrics: registry, readiness: s.readiness });
      log.info({ metrics: `${ops.url}/metrics`, mode: o.push ? 'Push' : 'Pull' }, 'syncer started');
      notifyReady({ type: 'ready', name: `syncer-${name}`, url: ops.url });
      // The syncer stops only when told to; stopping on its own (it could not start) ends the
      // process with exit code 1, so a supervisor (hcc up, a Deployment) restarts it instead of
      // leaving it idle behind a live /healthz.
      void s.done.then(() => {
        if (ac.signal.aborted) return;
        log.error('syncer stopped on its own; exiting');
        void ops.close().finally(() => process.exit(1));
      });
      shutdown.serving(async () => {
        ac.abort();
        await s.done;
        await ops.close();
        upstream.close();
        downstream?.close();
      });
    });
}
