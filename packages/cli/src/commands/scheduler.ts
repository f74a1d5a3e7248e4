/**
 * `hcc scheduler`: the cluster controller that places HostedClusters on ManagementClusters, with
 * the profiles and scale-out signal of an optional configuration file (`--config`) and
 * client-go-style leader election (`--lease-duration`, `--renew-deadline`, `--retry-period`).
 * A configuration file that does not validate stops the process before it connects, with every
 * problem listed on stderr (exit code 1).
 */
import { Command } from 'commander';
import { isNotFound, leaseResource, loadKubeconfig, RestClient, serveOps, type Lease } from '@hcc/client';
import { SchedulersGroup, SystemNamespace } from '@hcc/crds';
import type { Logger } from 'pino';
import {
  DefaultSchedulingWorkers,
  defaultSchedulerConfig,
  formatSchedulerConfig,
  leaderElectionProblem,
  loadSchedulerConfig,
  runScheduler,
  SchedulerConfigError,
  SchedulerLeaseName,
  seededRandom,
  type SchedulerConfig,
} from '@hcc/scheduler';
import { createLogger, logLevelOption } from '../logging.js';
import { catchShutdown, notifyReady } from '../lifecycle.js';
import { exitOnHostProblem, hostArg, identityArg, numberArg, pathArg, portArg, timerSecondsArg } from '../options.js';

/** Loads the configuration or exits 1 with its problems. */
function configOrExit(file: string | undefined): SchedulerConfig {
  try {
    return file ? loadSchedulerConfig(file) : defaultSchedulerConfig();
  } catch (err) {
    if (!(err instanceof SchedulerConfigError)) throw err;
    process.stderr.write(`hcc scheduler: ${err.message}\n`);
    process.exit(1);
  }
}

/**
 * Why the identity of the scheduler's kubeconfig may not place HostedClusters, or undefined when
 * it may (or when the control center cannot say: unreachable, or no SelfSubjectReview, so the
 * scheduler starts and its binds tell). Asks the control center who the caller is
 * (`SelfSubjectReview`, what `kubectl auth whoami` asks); only members of `hcc:schedulers` may bind.
 */
export async function bindingProblem(client: RestClient, log: Logger): Promise<string | undefined> {
  let user: { username?: string; groups?: string[] } | undefined;
  try {
    const review = await client.raw<{ status?: { userInfo?: { username?: string; groups?: string[] } } }>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    user = review.status?.userInfo;
  } catch (err) {
    log.warn({ err }, 'could not ask the control center who this scheduler is; starting anyway');
    return undefined;
  }
  if (!user || user.groups?.includes(SchedulersGroup)) return undefined;
  return (
    `the identity of --kubeconfig (user "${user.username ?? ''}", groups ${(user.groups ?? []).join(', ') || 'none'}) may not place HostedClusters: ` +
    `only members of the group ${SchedulersGroup} may. Use the kubeconfig hcc control-center writes for the scheduler (--scheduler-kubeconfig, default .hcc/scheduler.kubeconfig)`
  );
}

/**
 * Why a scheduler without leader election (`--no-leader-elect`) may not start: another scheduler
 * holds the scheduler Lease and renewed it within its lease duration. Capacity is kept by the one
 * scheduler that binds (it counts its own binds the syncers have not reported yet), so two
 * binding at once could place more HostedClusters on a cluster than it has room for. Undefined
 * when nobody holds the Lease, it expired, or the control center cannot say (the scheduler then
 * starts, as documented for one replica).
 * @param nowMs - the current time (ms since the epoch)
 */
export async function leaseHolderProblem(client: RestClient, log: Logger, nowMs = Date.now()): Promise<string | undefined> {
  let lease: Lease;
  try {
    lease = await client.get<Lease>(leaseResource, SystemNamespace, SchedulerLeaseName);
  } catch (err) {
    if (!isNotFound(err)) log.warn({ err }, 'could not read the scheduler Lease; starting anyway');
    return undefined;
  }
  const holder = lease.spec?.holderIdentity ?? '';
  const renewedMs = Date.parse(lease.spec?.renewTime ?? '');
  const validMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
  if (!holder || !Number.isFinite(renewedMs) || renewedMs + validMs <= nowMs) return undefined;
  const ago = Math.max(0, Math.round((nowMs - renewedMs) / 1000));
  return (
    `--no-leader-elect: the scheduler "${holder}" holds the Lease ${SystemNamespace}/${SchedulerLeaseName} (renewed ${ago} s ago): ` +
    `two schedulers binding at once could place more HostedClusters on a management cluster than its capacity. ` +
    `Stop it first, or run this one with leader election (without --no-leader-elect) as its standby`
  );
}

/** The `hcc scheduler` command. */
export function schedulerCommand(): Command {
  return new Command('scheduler')
    .description('run the scheduler: places each HostedCluster on a management cluster (filters, scores and profiles from --config)')
    .option('--kubeconfig <path>', "kubeconfig of the control center with the scheduler's identity (group hcc:schedulers; written by hcc control-center --scheduler-kubeconfig)", pathArg, '.hcc/scheduler.kubeconfig')
    .option('--config <file>', 'scheduler configuration file (YAML): profiles, plugins and weights, scale-out signal (see README "Scheduling")', pathArg)
    .option('--print-config', 'print the effective configuration (defaults filled) as YAML and exit')
    .option('--metrics-host <host>', 'address of /metrics, /healthz and /readyz (0.0.0.0 or :: in a pod, for probes and scraping)', hostArg, '127.0.0.1')
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz (0 picks a free port)', portArg, 0)
    .option('--heartbeat-grace <seconds>', 'a management cluster whose syncer heartbeat is older is not ready (a syncer announcing a longer Lease duration, 4 × its heartbeat interval, gets that)', timerSecondsArg(), 40)
    .option('--workers <n>', 'concurrent scheduling workers: HostedClusters between decision and bind at once (binds in flight)', numberArg({ integer: true, min: 1 }), DefaultSchedulingWorkers)
    .option('--no-leader-elect', 'schedule at once without waiting for the Lease, holding it meanwhile (one replica; refused while another scheduler holds the Lease)')
    .option('--id <identity>', 'identity in the leader election Lease, one per replica: two with one identity both lead (default: hostname_uuid)', identityArg)
    .option('--lease-duration <seconds>', 'how long the Lease stays valid after its last renewal: a standby takes over this long after the leader dies', timerSecondsArg({ integer: true, min: 1 }), 15)
    .option('--renew-deadline <seconds>', 'a leader that cannot renew for this long steps down (less than --lease-duration)', timerSecondsArg(), 10)
    .option('--retry-period <seconds>', 'between election attempts and renewals', timerSecondsArg(), 2)
    .option('--seed <n>', 'seed for the random last tie-break (reproducible placements)', numberArg({ integer: true }))
    .addOption(logLevelOption())
    .action(async (o) => {
      const config = configOrExit(o.config);
      if (o.printConfig) {
        process.stdout.write(formatSchedulerConfig(config));
        return;
      }
      const durations = { leaseDurationSeconds: o.leaseDuration, renewDeadlineSeconds: o.renewDeadline, retryPeriodSeconds: o.retryPeriod };
      const problem = leaderElectionProblem(durations);
      if (problem) {
        process.stderr.write(`hcc scheduler: ${problem} (--lease-duration, --renew-deadline, --retry-period)\n`);
        process.exit(1);
      }
      await exitOnHostProblem(o.metricsHost, '--metrics-host <host>', 'scheduler');
      const log = createLogger('scheduler', o.logLevel);
      const shutdown = catchShutdown(log);
      const conn = loadKubeconfig(o.kubeconfig);
      const client = new RestClient(conn, { userAgent: 'hcc-scheduler', logger: log });
      const cannotStart = (await bindingProblem(client, log)) ?? (o.leaderElect ? undefined : await leaseHolderProblem(client, log));
      if (cannotStart) {
        // One line, on stderr, as every refused start (hcc up's log file takes stderr too).
        process.stderr.write(`hcc scheduler: ${cannotStart}\n`);
        client.close();
        process.exit(1);
      }
      // The Lease on connections of its own: renewals never wait behind the binds (up to one per
      // worker, every connection `client` has), as kube-scheduler's leader election has its own client.
      const leaseClient = new RestClient(conn, { userAgent: 'hcc-scheduler/leader-election', logger: log, maxSockets: 2 });
      const ac = new AbortController();
      const s = runScheduler({
        client,
        leaseClient,
        logger: log,
        signal: ac.signal,
        config,
        leaderElect: o.leaderElect,
        identity: o.id,
        ...durations,
        heartbeatGraceMs: o.heartbeatGrace * 1000,
        workers: o.workers,
        random: o.seed === undefined ? undefined : seededRandom(o.seed),
      });
      const ops = await serveOps({ host: o.metricsHost, port: o.metricsPort, metrics: s.metrics.registry, readiness: s.readiness });
      log.info({ metrics: `${ops.url}/metrics`, config: o.config ?? '(defaults)', profiles: config.profiles.map((p) => p.name) }, 'scheduler started');
      notifyReady({ type: 'ready', name: 'scheduler', url: ops.url });
      shutdown.serving(async () => {
        ac.abort();
        await s.done;
        await ops.close();
        client.close();
        leaseClient.close();
      });
    });
}
