/**
 * `hcc syncer`: the agent of one management cluster (pull mode). Registers its
 * ManagementCluster, heartbeats its budget, replicates what is placed on it and copies status up.
 */
import { Command } from 'commander';
import client from 'prom-client';
import { loadKubeconfig, RestClient, serveOps } from '@hcc/client';
import { PlatformTypes } from '@hcc/crds';
import { runSyncer } from '@hcc/syncer';
import { createLogger } from '../logging.js';
import { notifyReady, onShutdown } from '../lifecycle.js';

/** Parses `k=v,k2=v2` into labels. */
export function parseLabels(s: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (s ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new Error(`invalid label "${part}": want key=value`);
    out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

/** Parses a comma-separated platform list, checking each against HyperShift's platform types. */
export function parsePlatforms(s: string | undefined): string[] | undefined {
  if (!s) return undefined;
  const list = s.split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of list) {
    if (!(PlatformTypes as readonly string[]).includes(p)) throw new Error(`unknown platform "${p}": want one of ${PlatformTypes.join(', ')}`);
  }
  return list;
}

export function syncerCommand(): Command {
  return new Command('syncer')
    .description('run the syncer of one management cluster: heartbeat + budget, downsync of what is placed on it, upsync of status')
    .requiredOption('--name <name>', 'ManagementCluster name (a DNS label)')
    .option('--kubeconfig <path>', 'kubeconfig of the control center', '.hcc/admin.kubeconfig')
    .requiredOption('--management-kubeconfig <path>', 'kubeconfig of the management cluster')
    .option('--capacity <n>', 'most HostedClusters this cluster may hold (set when the syncer creates its ManagementCluster)', '50')
    .option('--platforms <list>', `platforms it can host, comma-separated (${PlatformTypes.join(', ')}); default all`)
    .option('--labels <k=v,...>', 'labels of the ManagementCluster (region, provider, ...)')
    .option('--heartbeat-interval <seconds>', 'between heartbeats', '10')
    .option('--workers <n>', 'concurrent workers per queue', '4')
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz (0 picks a free port)', '0')
    .option('--log-level <level>', 'pino log level', 'info')
    .action(async (o) => {
      const log = createLogger(`syncer-${o.name}`, o.logLevel);
      const upstream = new RestClient(loadKubeconfig(o.kubeconfig), { userAgent: `hcc-syncer/${o.name}`, logger: log });
      const downstream = new RestClient(loadKubeconfig(o.managementKubeconfig), { userAgent: `hcc-syncer/${o.name}`, logger: log });
      const ac = new AbortController();
      const registry = new client.Registry();
      client.collectDefaultMetrics({ register: registry });
      const s = runSyncer({
        cluster: o.name,
        upstream,
        downstream,
        logger: log,
        signal: ac.signal,
        initialSpec: { capacity: Number(o.capacity), platforms: parsePlatforms(o.platforms), mode: 'Pull' },
        labels: parseLabels(o.labels),
        heartbeatIntervalMs: Number(o.heartbeatInterval) * 1000,
        workers: Number(o.workers),
        metricsRegistry: registry,
      });
      const ops = await serveOps({ port: Number(o.metricsPort), metrics: registry, readiness: s.readiness });
      log.info({ metrics: `${ops.url}/metrics` }, 'syncer started');
      notifyReady({ type: 'ready', name: `syncer-${o.name}`, url: ops.url });
      onShutdown(log, async () => {
        ac.abort();
        await s.done;
        await ops.close();
        upstream.close();
        downstream.close();
      });
    });
}
