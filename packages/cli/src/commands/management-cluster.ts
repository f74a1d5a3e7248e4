/**
 * `hcc management-cluster`: an embedded management cluster, i.e. the control-center API server
 * started on its own port and data dir with only the HyperShift CRDs installed, plus the
 * hypershift-sim acting as the HyperShift operator against it. Stands in for a kind or real
 * cluster where none can run (`hcc up`, the demo, tests). Writes an admin kubeconfig whose context
 * is the cluster's name; a syncer uses it as its management-cluster kubeconfig.
 */
import { stateDirConflict } from '../state-dir-lock.js';
import path from 'node:path';
import { Command, Option } from 'commander';
import { loadKubeconfig, RestClient } from '@hcc/client';
import { hyperShiftCRDsForManagementClusters } from '@hcc/crds';
import { startControlCenter } from '@hcc/control-center';
import { DefaultSupportedVersions, startHyperShiftSim } from '@hcc/hypershift-sim';
import { registerSimMetrics } from '../sim-metrics.js';
import { createLogger, logLevelOption } from '../logging.js';
import { authorizerFromFile } from '../authorization.js';
import { catchShutdown, notifyReady } from '../lifecycle.js';
import { delayMsArg, existingFileArg, exitOnHostProblem, hostArg, managementClusterNameArg, portArg, versionListArg, pathArg } from '../options.js';

interface ManagementClusterOptions {
  name: string;
  dataDir?: string;
  host: string;
  port: number;
  kubeconfig?: string;
  availableDelay: number;
  deleteDelay: number;
  supportedVersions: string[];
  logLevel: string;
  tokenFile?: string;
  authorizationPolicy?: string;
  acceptStorageLoss?: boolean;
}

/** The `hcc management-cluster` command: its action serves until SIGINT or SIGTERM, and sends a parent the ready message. */
export function managementClusterCommand(): Command {
  return new Command('management-cluster')
    .description('run an embedded management cluster: an API server with the HyperShift CRDs and the hypershift-sim')
    .option('--name <name>', 'name of the management cluster (a DNS label: kubeconfig context, log name, its ManagementCluster)', managementClusterNameArg, 'mgmt-1')
    .option('--data-dir <dir>', 'directory for the level database (default: .hcc/data/<name>)', pathArg)
    .option('--host <host>', 'address to listen on', hostArg, '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free port)', portArg, 0)
    .option('--kubeconfig <path>', 'where to write the admin kubeconfig (default: .hcc/management-clusters/<name>.kubeconfig)', pathArg)
    .option('--available-delay <ms>', 'how long a HostedCluster rollout takes before it is Available', delayMsArg, 2000)
    .option('--delete-delay <ms>', 'how long the teardown of a HostedCluster or NodePool takes', delayMsArg, 500)
    .addOption(
      new Option('--supported-versions <list>', 'OCP minor versions the sim supports, newest first (comma-separated)')
        .argParser(versionListArg)
        .default([...DefaultSupportedVersions], DefaultSupportedVersions.join(',')),
    )
    .option('--token-file <file>', 'static token file with more users (e.g. a syncer\'s): token,user,uid,"group1,group2" per line', existingFileArg)
    .option('--authorization-policy <file>', 'RBAC manifests limiting what non-admin users may do, e.g. deploy/syncer/rbac.yaml for the syncer\'s service account', pathArg)
    .option('--accept-storage-loss', 'start even when the data dir shows lost or damaged committed writes (refused otherwise): serve what is left')
    .addOption(logLevelOption())
    .action(async (o: ManagementClusterOptions, cmd: Command) => {
      await exitOnHostProblem(o.host, '--host <host>', 'management-cluster');
      const name = o.name;
      const log = createLogger(name, o.logLevel);
      const shutdown = catchShutdown(log);
      const dataDir = path.resolve(o.dataDir ?? path.join('.hcc', 'data', name));
      const kubeconfig = path.resolve(o.kubeconfig ?? path.join('.hcc', 'management-clusters', `${name}.kubeconfig`));
      const conflict = stateDirConflict({ '--kubeconfig': kubeconfig, '--data-dir': dataDir });
      if (conflict) cmd.error(conflict);
      const cc = await startControlCenter({
        dataDir,
        host: o.host,
        port: o.port,
        kubeconfigPath: kubeconfig,
        contextName: name,
        crds: hyperShiftCRDsForManagementClusters,
        tokenFile: o.tokenFile ? path.resolve(o.tokenFile) : undefined,
        authorizer: authorizerFromFile(o.authorizationPolicy),
        logger: log,
        acceptStorageLoss: !!o.acceptStorageLoss,
        onStorageFailure: (err) => shutdown.fail(err, 'storage failed: exiting, so that a restart reopens the data dir (no acknowledged write is lost)'),
      });
      const client = new RestClient(loadKubeconfig(kubeconfig, name), { userAgent: `hcc-hypershift-sim/${name}`, logger: log });
      let sim: Awaited<ReturnType<typeof startHyperShiftSim>>;
      try {
        sim = await startHyperShiftSim({
          client,
          logger: log,
          availableDelayMs: o.availableDelay,
          deleteDelayMs: o.deleteDelay,
          supportedVersions: o.supportedVersions,
        });
      } catch (err) {
        client.close();
        await cc.close();
        throw err;
      }
      // The simulated operator's series go on the management cluster's own /metrics.
      registerSimMetrics(cc.metricsRegistry, () => sim.stats());
      log.info({ url: cc.url, kubeconfig, dataDir }, 'management cluster ready');
      notifyReady({ type: 'ready', name, url: cc.url, kubeconfig });
      shutdown.serving(async () => {
        await sim.stop();
        client.close();
        await cc.close();
      });
    });
}
