/**
 * `hcc hypershift-sim`: the HyperShift operator stand-in against an existing cluster (a kind
 * cluster with the HyperShift CRDs installed, for the kind demo), from a kubeconfig or in-cluster.
 */
import { Command, Option } from 'commander';
import client from 'prom-client';
import { RestClient, serveOps } from '@hcc/client';
import { startHyperShiftSim, DefaultSupportedVersions } from '@hcc/hypershift-sim';
import { createLogger, logLevelOption } from '../logging.js';
import { catchShutdown, notifyReady } from '../lifecycle.js';
import { connectionFor } from '../connection.js';
import { registerSimMetrics } from '../sim-metrics.js';
import { delayMsArg, hostArg, pathArg, portArg, versionListArg } from '../options.js';

/** The `hcc hypershift-sim` command: its action runs until SIGINT or SIGTERM, and sends a parent the ready message. */
export function hypershiftSimCommand(): Command {
  return new Command('hypershift-sim')
    .description("run the HyperShift operator stand-in against a cluster that has the HyperShift CRDs (kind demo); no real control planes are started")
    .option('--kubeconfig <path>', 'kubeconfig of the cluster (default: in-cluster service account)', pathArg)
    .option('--available-delay <ms>', 'how long a HostedCluster rollout takes before it is Available', delayMsArg, 2000)
    .option('--delete-delay <ms>', 'how long the teardown of a HostedCluster or NodePool takes', delayMsArg, 500)
    .addOption(
      new Option('--supported-versions <list>', 'OCP minor versions it supports, newest first (comma-separated)')
        .argParser(versionListArg)
        .default([...DefaultSupportedVersions], DefaultSupportedVersions.join(',')),
    )
    .option('--metrics-host <host>', 'address of /metrics, /healthz and /readyz (:: on an IPv6-only cluster)', hostArg, '0.0.0.0')
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz (0 picks a free port)', portArg, 0)
    .addOption(logLevelOption())
    .action(async (o) => {
      const log = createLogger('hypershift-sim', o.logLevel);
      const shutdown = catchShutdown(log);
      const rest = new RestClient(connectionFor(o.kubeconfig, 'cluster', '--kubeconfig'), { userAgent: 'hcc-hypershift-sim', logger: log });
      const sim = await startHyperShiftSim({
        client: rest,
        logger: log,
        availableDelayMs: o.availableDelay,
        deleteDelayMs: o.deleteDelay,
        supportedVersions: o.supportedVersions as string[],
      });
      const registry = new client.Registry();
      client.collectDefaultMetrics({ register: registry });
      registerSimMetrics(registry, () => sim.stats());
      // Ready once serving: startHyperShiftSim resolves after its informers synced.
      const ops = await serveOps({ host: o.metricsHost, port: o.metricsPort, metrics: registry, readiness: () => '' });
      log.info({ metrics: `${ops.url}/metrics` }, 'hypershift-sim serving');
      notifyReady({ type: 'ready', name: 'hypershift-sim', url: ops.url });
      shutdown.serving(async () => {
        await sim.stop();
        await ops.close();
        rest.close();
      });
    });
}
