/**
 * Plays the syncers of a fleet for scheduler end-to-end tests, so they need only `hcc
 * control-center` and `hcc scheduler` processes: creates ManagementClusters and writes their
 * status heartbeats (Ready, lastHeartbeatTime, hostedClusters, budget, supportedVersions) with
 * `@hcc/client` at random intervals, reporting `hostedClusters` that lag behind the placements
 * by a random delay — the timing a real syncer has, and the one that could overbook a naive
 * scheduler. It also watches every HostedCluster and records any placement label that changes
 * once set (a HostedCluster bound twice).
 */
import { Informer, keyOf, type RestClient } from '@hcc/client';
import { ControlCenterAPIVersion, HostedClusterResource, ManagementClusterResource, type HostedCluster, type ManagementCluster } from '@hcc/crds';

const Label = 'controlcenter.hcc.dev/management-cluster';

/** What a fake management cluster looks like. */
export interface FakeCluster {
  name: string;
  capacity: number;
  platforms?: string[];
  labels?: Record<string, string>;
  taints?: NonNullable<ManagementCluster['spec']['taints']>;
  supportedVersions?: string[];
}

/** Options of the fleet. */
export interface FakeFleetOptions {
  /** Heartbeat interval range, in milliseconds (each beat picks at random). Default [200, 1500]. */
  heartbeatMs?: [number, number];
  /** How far behind reality a heartbeat's `hostedClusters` is, in milliseconds (random per beat). Default [0, 3000]. */
  lagMs?: [number, number];
}

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const between = ([a, b]: [number, number]) => a + Math.random() * (b - a);

/** A fleet of fake syncers plus a placement watcher; see the module comment. */
export class FakeFleet {
  /** When each HostedCluster key was first seen placed, per cluster: key → ms. */
  private readonly placedAt = new Map<string, Map<string, number>>();
  private readonly firstLabel = new Map<string, string>();
  private readonly clusters = new Map<string, { spec: FakeCluster; timer?: NodeJS.Timeout; readySince: number; stopped: boolean }>();
  /** Placement label changes seen (`key: a → b`); must stay empty. */
  readonly rebinds: string[] = [];
  readonly informer: Informer<HostedCluster>;
  private readonly heartbeatMs: [number, number];
  private readonly lagMs: [number, number];
  private beats = 0;

  constructor(
    private readonly client: RestClient,
    opts: FakeFleetOptions = {},
  ) {
    this.heartbeatMs = opts.heartbeatMs ?? [200, 1500];
    this.lagMs = opts.lagMs ?? [0, 3000];
    this.informer = new Informer<HostedCluster>({ client, ref: HostedClusterResource });
    const seen = (o: HostedCluster) => {
      const key = keyOf(o);
      const label = o.metadata.labels?.[Label];
      const first = this.firstLabel.get(key);
      if (first !== undefined && first !== label) this.rebinds.push(`${key}: ${first} → ${label ?? '(none)'}`);
      if (label && first === undefined) {
        this.firstLabel.set(key, label);
        let m = this.placedAt.get(label);
        if (!m) this.placedAt.set(label, (m = new Map()));
        m.set(key, Date.now());
      }
    };
    this.informer.addEventHandler({
      onAdd: seen,
      onUpdate: (_old, o) => seen(o),
      // Gone: its slot frees (the syncer would report it after its own delete) and the name may be reused.
      onDelete: (t) => {
        const key = keyOf(t);
        const label = this.firstLabel.get(key);
        if (label) this.placedAt.get(label)?.delete(key);
        this.firstLabel.delete(key);
      },
    });
  }

  /** Starts watching HostedClusters; resolves once the first list is in. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync(new AbortController().signal);
  }

  /** HostedClusters labelled for `cluster` as the watcher sees them now. */
  placedOn(cluster: string): number {
    return this.placedAt.get(cluster)?.size ?? 0;
  }

  /** Heartbeats written so far (all clusters). */
  get heartbeats(): number {
    return this.beats;
  }

  /** Creates the ManagementCluster, writes a first heartbeat, then keeps heartbeating. */
  async register(spec: FakeCluster): Promise<void> {
    await this.client.create<ManagementCluster>(ManagementClusterResource, undefined, {
      apiVersion: ControlCenterAPIVersion,
      kind: 'ManagementCluster',
      metadata: { name: spec.name, labels: spec.labels ?? {} },
      spec: { capacity: spec.capacity, platforms: spec.platforms ?? [], mode: 'Pull', ...(spec.taints ? { taints: spec.taints } : {}) },
    });
    const c = { spec, readySince: Date.now(), stopped: false } as { spec: FakeCluster; timer?: NodeJS.Timeout; readySince: number; stopped: boolean };
    this.clusters.set(spec.name, c);
    await this.beat(spec.name);
    const loop = () => {
      if (c.stopped) return;
      c.timer = setTimeout(() => {
        this.beat(spec.name)
          .catch(() => undefined)
          .finally(loop);
      }, between(this.heartbeatMs));
    };
    loop();
  }

  /** One heartbeat: status as a syncer would write it, with a lagging hosted count. */
  async beat(name: string): Promise<void> {
    const c = this.clusters.get(name)!;
    const now = Date.now();
    const cutoff = now - between(this.lagMs);
    let hosted = 0;
    for (const t of this.placedAt.get(name)?.values() ?? []) if (t <= cutoff) hosted++;
    await this.client.patch(
      ManagementClusterResource,
      undefined,
      name,
      {
        status: {
          conditions: [{ type: 'Ready', status: 'True', reason: 'SyncerHeartbeat', message: 'The syncer is connected and reporting', lastTransitionTime: rfc3339(c.readySince) }],
          lastHeartbeatTime: rfc3339(now),
          namespaces: 10 + hosted,
          hostedClusters: hosted,
          budget: Math.max(0, c.spec.capacity - hosted),
          syncerVersion: 'fake',
          ...(c.spec.supportedVersions ? { supportedVersions: c.spec.supportedVersions } : {}),
        },
      },
      'merge',
      { subresource: 'status' },
    );
    this.beats++;
  }

  /** Stops one cluster's heartbeats (its syncer is lost). */
  lose(name: string): void {
    const c = this.clusters.get(name);
    if (!c) return;
    c.stopped = true;
    clearTimeout(c.timer);
  }

  /** Stops every heartbeat and the watcher. */
  async stop(): Promise<void> {
    for (const name of this.clusters.keys()) this.lose(name);
    await this.informer.stop();
  }
}

/** A minimal valid HostedCluster (platform None unless given, release 4.16.12, pull secret `pull-secret`). */
export function minimalHostedCluster(name: string, namespace: string, o: { platform?: string; image?: string; annotations?: Record<string, string> } = {}): HostedCluster {
  return {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'HostedCluster',
    metadata: { name, namespace, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      release: { image: o.image ?? 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' },
      pullSecret: { name: 'pull-secret' },
      dns: { baseDomain: 'example.com' },
      networking: { clusterNetwork: [{ cidr: '10.132.0.0/14' }], serviceNetwork: [{ cidr: '172.31.0.0/16' }], networkType: 'OVNKubernetes' },
      platform: { type: o.platform ?? 'None' },
      services: ['APIServer', 'OAuthServer', 'Konnectivity', 'Ignition'].map((service) => ({ service, servicePublishingStrategy: { type: 'NodePort', nodePort: { address: '10.0.0.1' } } })),
    },
  };
}
