/**
 * `hcc scheduler`: the cluster controller that places HostedClusters on ManagementClusters.
 */
import { Command } from 'commander';
import { loadKubeconfig, RestClient, serveOps } from '@hcc/client';
import { runScheduler } from '@hcc/scheduler';
import { createLogger } from '../logging.js';
import { notifyReady, onShutdown } from '../lifecycle.js';

export function schedulerCommand(): Command {
  return new Command('scheduler')
    .description('run the scheduler: places each HostedCluster on the management cluster with the most budget')
    .option('--kubeconfig <path>', 'kubeconfig of the control center', '.hcc/admin.kubeconfig')
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz (0 picks a free port)', '0')
    .option('--heartbeat-grace <seconds>', 'a management cluster whose syncer heartbeat is older is not ready', '40')
    .option('--workers <n>', 'concurrent scheduling workers', '4')
    .option('--no-leader-elect', 'act without leader election (only one replica may run)')
    .option('--id <identity>', 'identity in the leader election Lease')
    .option('--log-level <level>', 'pino log level', 'info')
    .action(async (o) => {
      const log = createLogger('scheduler', o.logLevel);
      const client = new RestClient(loadKubeconfig(o.kubeconfig), { userAgent: 'hcc-scheduler', logger: log });
      const ac = new AbortController();
      const s = runScheduler({
        client,
        logger: log,
        signal: ac.signal,
        leaderElect: o.leaderElect,
        identity: o.id,
        heartbeatGraceMs: Number(o.heartbeatGrace) * 1000,
        workers: Number(o.workers),
      });
      const ops = await serveOps({ port: Number(o.metricsPort), metrics: s.metrics.registry, readiness: s.readiness });
      log.info({ metrics: `${ops.url}/metrics` }, 'scheduler started');
      notifyReady({ type: 'ready', name: 'scheduler', url: ops.url });
      onShutdown(log, async () => {
        ac.abort();
        await s.done;
        await ops.close();
        client.close();
      });
    });
}
