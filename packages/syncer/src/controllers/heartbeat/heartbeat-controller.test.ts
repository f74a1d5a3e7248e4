import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { ApiError, FakeClock, RequestError, type RestClient } from '@hcc/client';
import { LeaseResource, ManagementClusterResource, type KubeObject, type ManagementCluster } from '@hcc/crds';
import { beat, HeartbeatTrigger, leaseConflict, leaseOwnerReferences, MinTriggeredBeatSpacingMs, register, registerWithRetries, runHeartbeats, type HeartbeatOptions } from './heartbeat-controller.js';

/** An upstream whose GET of the ManagementCluster fails `failures` times below HTTP, then says 404; create succeeds. */
function flakyUpstream(failures: number) {
  const calls: string[] = [];
  let left = failures;
  const upstream = {
    get: async () => {
      calls.push('get');
      if (left > 0) {
        left--;
        throw new RequestError('GET https://127.0.0.1:1/apis/controlcenter.hcc.dev/v1alpha1/managementclusters/mgmt-1: connect ECONNREFUSED');
      }
      throw new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'not found' });
    },
    create: async (_r: unknown, _ns: unknown, obj: ManagementCluster) => {
      calls.push('create');
      return obj;
    },
  } as unknown as RestClient;
  return { upstream, calls };
}

function options(upstream: RestClient, clock: FakeClock, signal: AbortSignal, lines: unknown[]): HeartbeatOptions {
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  return {
    cluster: 'mgmt-1',
    upstream,
    observe: async () => ({ namespaces: 0, hostedClusters: 0, supportedVersions: [] }),
    initialSpec: { capacity: 5 },
    identity: 'test',
    syncerVersion: 'test',
    intervalMs: 10_000,
    leaseDurationSeconds: 40,
    logger,
    signal,
    clock,
  };
}

describe('registerWithRetries', () => {
  it('keeps trying while the control center is unreachable, backing off, and registers once it answers', async () => {
    const clock = new FakeClock();
    const { upstream, calls } = flakyUpstream(3);
    const lines: { msg?: string; retryInMs?: number }[] = [];
    const problems: (string | undefined)[] = [];
    const done = registerWithRetries({ ...options(upstream, clock, new AbortController().signal, lines), onProblem: (why) => void problems.push(why) });
    for (let i = 0; i < 3; i++) {
      await clock.waitForWaiters(1);
      clock.step(60_000);
    }
    expect(await done).toBe(true);
    expect(calls).toEqual(['get', 'get', 'get', 'get', 'create']);
    expect(lines.map((l) => l.msg)).toEqual(Array(3).fill('registering the ManagementCluster failed; retrying'));
    // What /readyz says meanwhile.
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^registering the ManagementCluster failed \(retrying\): /);
    const delays = lines.map((l) => l.retryInMs!);
    // 200 ms doubling, up to 20% jitter each.
    expect(delays[0]).toBeGreaterThanOrEqual(200);
    expect(delays[0]).toBeLessThanOrEqual(240);
    expect(delays[1]).toBeGreaterThanOrEqual(400);
    expect(delays[2]).toBeGreaterThanOrEqual(800);
  });

  it('logs a refusal (a pull syncer of a Push-mode cluster) by its message, without a stack trace', async () => {
    const clock = new FakeClock();
    const upstream = { get: async () => ({ metadata: { name: 'mgmt-1' }, spec: { mode: 'Push' } }) } as unknown as RestClient;
    const lines: { msg?: string; refusal?: string; err?: unknown }[] = [];
    const ac = new AbortController();
    const done = registerWithRetries({ ...options(upstream, clock, ac.signal, lines), initialSpec: { mode: 'Pull' } });
    await clock.waitForWaiters(1);
    ac.abort();
    expect(await done).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toBe('registering the ManagementCluster failed; retrying');
    expect(lines[0]!.refusal).toMatch(/^ManagementCluster mgmt-1 is in Push mode/);
    expect(lines[0]!.err).toBeUndefined();
  });

  it('gives up quietly when the syncer is stopped while waiting (resolves false)', async () => {
    const clock = new FakeClock();
    const { upstream, calls } = flakyUpstream(100);
    const ac = new AbortController();
    const done = registerWithRetries(options(upstream, clock, ac.signal, []));
    await clock.waitForWaiters(1);
    ac.abort();
    expect(await done).toBe(false);
    expect(calls).toEqual(['get']);
  });
});

describe('register with an existing ManagementCluster', () => {
  const existing = (): ManagementCluster =>
    ({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name: 'mgmt-1', labels: { tier: 'a' } }, spec: { capacity: 2, platforms: ['AWS'] } }) as ManagementCluster;
  const upstreamWith = (mc: ManagementCluster) => {
    const writes: unknown[] = [];
    const upstream = {
      get: async () => structuredClone(mc),
      patch: async (...a: unknown[]) => (writes.push(a), structuredClone(mc)),
      create: async (...a: unknown[]) => (writes.push(a), structuredClone(mc)),
    } as unknown as RestClient;
    return { upstream, writes };
  };

  it('keeps its spec and labels and warns about explicitly given settings it does not apply', async () => {
    const lines: { msg: string; notApplied?: unknown }[] = [];
    const { upstream, writes } = upstreamWith(existing());
    const opts = options(upstream, new FakeClock(), new AbortController().signal, lines);
    await register({ ...opts, initialSpec: { capacity: 7, platforms: ['None'], mode: 'Pull' }, labels: { tier: 'b', zone: 'z1' }, explicit: ['capacity', 'platforms', 'labels'] });
    // Only what it lacks is filled (mode); capacity, platforms and labels stay.
    expect(writes).toEqual([[expect.anything(), undefined, 'mgmt-1', { spec: { mode: 'Pull' } }, 'merge']]);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toBe(
      'the ManagementCluster exists, so --capacity, --platforms, --labels are not applied (they only fill what a new one lacks); change it in the control center: kubectl edit managementcluster mgmt-1',
    );
    expect(lines[0]!.notApplied).toEqual({
      capacity: { given: 7, current: 2 },
      platforms: { given: ['None'], current: ['AWS'] },
      labels: { given: { tier: 'b', zone: 'z1' }, current: { tier: 'a', zone: null } },
    });
  });

  it('does not fill in capacity or platforms an existing one lacks (absent platforms means all): it warns instead', async () => {
    const lines: { msg: string; notApplied?: unknown }[] = [];
    const bare = { ...existing(), metadata: { name: 'mgmt-1' }, spec: { mode: 'Pull' } } as ManagementCluster;
    const { upstream, writes } = upstreamWith(bare);
    const opts = options(upstream, new FakeClock(), new AbortController().signal, lines);
    await register({ ...opts, initialSpec: { capacity: 7, platforms: ['AWS'], mode: 'Pull' }, explicit: ['capacity', 'platforms'] });
    expect(writes).toEqual([]);
    expect(lines[0]!.notApplied).toEqual({ capacity: { given: 7, current: null }, platforms: { given: ['AWS'], current: null } });
  });

  it('says when the server it was given does not serve ManagementClusters at all (a management cluster\'s kubeconfig given as the control center\'s)', async () => {
    const unknownResource = () => new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
    const upstream = {
      get: async () => {
        throw unknownResource();
      },
      create: async () => {
        throw unknownResource();
      },
    } as unknown as RestClient;
    await expect(register(options(upstream, new FakeClock(), new AbortController().signal, []))).rejects.toThrow(
      "the server --kubeconfig points at does not serve ManagementClusters (controlcenter.hcc.dev/v1alpha1): --kubeconfig must be the control center's kubeconfig; this looks like a management cluster's or another server's (404 the server could not find the requested resource)",
    );
  });

  it('a pull syncer does not serve a ManagementCluster in Push mode: it says how to switch it', async () => {
    const push = { ...existing(), metadata: { name: 'mgmt-1' }, spec: { mode: 'Push', kubeconfigSecretRef: { name: 'k' } } } as ManagementCluster;
    const { upstream, writes } = upstreamWith(push);
    const opts = options(upstream, new FakeClock(), new AbortController().signal, []);
    await expect(register({ ...opts, initialSpec: { mode: 'Pull' } })).rejects.toThrow(
      `ManagementCluster mgmt-1 is in Push mode (spec.mode: Push): hcc syncer --push serves it, so this pull syncer serves nothing; to serve it from here: kubectl patch mc mgmt-1 --type=merge -p '{"spec":{"mode":"Pull","kubeconfigSecretRef":null}}'`,
    );
    await expect(beat({ ...opts, initialSpec: { mode: 'Pull' } })).rejects.toThrow('is in Push mode');
    expect(writes).toEqual([]);
    // The push syncer's own (no initial mode) serves it.
    await expect(register(opts)).resolves.toBeDefined();
  });

  it('says nothing when the given settings agree, or were defaults', async () => {
    const lines: unknown[] = [];
    const { upstream } = upstreamWith(existing());
    const opts = options(upstream, new FakeClock(), new AbortController().signal, lines);
    await register({ ...opts, initialSpec: { capacity: 2, platforms: ['AWS'] }, labels: { tier: 'a' }, explicit: ['capacity', 'platforms', 'labels'] });
    await register({ ...opts, initialSpec: { capacity: 50 }, explicit: [] });
    expect(lines).toEqual([]);
  });
});

describe('createIfMissing', () => {
  /** An upstream without the ManagementCluster (GET says 404) that records every call; Lease writes succeed. */
  function goneUpstream() {
    const calls: string[] = [];
    const notFound = () => new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'not found' });
    const upstream = {
      get: async (r: { resource: string }) => {
        calls.push(`get ${r.resource}`);
        throw notFound();
      },
      create: async (r: { resource: string }, _ns: unknown, obj: ManagementCluster) => {
        calls.push(`create ${r.resource}`);
        return obj;
      },
      update: async (r: { resource: string }) => calls.push(`update ${r.resource}`),
      patch: async (r: { resource: string }) => calls.push(`patch ${r.resource}`),
    } as unknown as RestClient;
    return { upstream, calls };
  }

  it('a heartbeat that finds its ManagementCluster deleted registers it again by default (pull mode)', async () => {
    const { upstream, calls } = goneUpstream();
    await beat(options(upstream, new FakeClock(), new AbortController().signal, []));
    expect(calls).toContain('create managementclusters');
  });

  it('false (push mode): a heartbeat after the deletion completed neither creates the ManagementCluster nor writes its status', async () => {
    const { upstream, calls } = goneUpstream();
    const lines: unknown[] = [];
    let gone = 0;
    await beat({ ...options(upstream, new FakeClock(), new AbortController().signal, lines), createIfMissing: false, onManagementClusterGone: () => void gone++ });
    expect(calls.filter((c) => c.endsWith('managementclusters'))).toEqual(['get managementclusters']);
    expect(lines).toEqual([]); // not a warning: the push controller stops this syncer next
    expect(gone).toBe(1); // the syncer stops copying statuses up (the scheduler marks them "no longer exists")
  });

  it('false: registration of an absent ManagementCluster fails with NotFound instead of creating it', async () => {
    const { upstream, calls } = goneUpstream();
    await expect(register({ ...options(upstream, new FakeClock(), new AbortController().signal, []), createIfMissing: false })).rejects.toMatchObject({ code: 404 });
    expect(calls).toEqual(['get managementclusters']);
  });
});

const notFound = () => new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'not found' });

/** An upstream holding one ManagementCluster `mgmt-1` and, when given, its Lease; records every write. */
function fleetUpstream(o: { uid?: string; lease?: KubeObject }) {
  const writes: { verb: string; resource: string; obj: Record<string, unknown> }[] = [];
  const mc: ManagementCluster = { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name: 'mgmt-1', uid: o.uid ?? 'uid-mc-1', resourceVersion: '7' }, spec: { capacity: 5 } };
  const upstream = {
    get: async (ref: unknown) => {
      if (ref === ManagementClusterResource) return structuredClone(mc);
      if (ref === LeaseResource && o.lease) return structuredClone(o.lease);
      throw notFound();
    },
    create: async (ref: unknown, _ns: unknown, obj: KubeObject) => (writes.push({ verb: 'create', resource: ref === LeaseResource ? 'lease' : 'mc', obj }), obj),
    update: async (ref: unknown, _ns: unknown, obj: KubeObject) => (writes.push({ verb: 'update', resource: ref === LeaseResource ? 'lease' : 'mc', obj }), obj),
    patch: async (ref: unknown, _ns: unknown, _name: string, patch: Record<string, unknown>) => (writes.push({ verb: 'patch', resource: ref === LeaseResource ? 'lease' : 'mc', obj: patch }), mc),
  } as unknown as RestClient;
  return { upstream, writes };
}

describe('beat', () => {
  const owner = { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', name: 'mgmt-1', uid: 'uid-mc-1' };
  const run = async (upstream: RestClient, leaseDurationSeconds = 40) =>
    beat({ ...options(upstream, new FakeClock(), new AbortController().signal, []), leaseDurationSeconds });

  it('says on the ManagementCluster that its API cannot be reached (Ready=False), renews its Lease, and still fails the heartbeat', async () => {
    const { upstream, writes } = fleetUpstream({});
    const opts = { ...options(upstream, new FakeClock(), new AbortController().signal, []), observe: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.9:6443')) };
    await expect(beat(opts)).rejects.toThrow('connect ECONNREFUSED 10.0.0.9:6443');
    expect(writes.some((w) => w.resource === 'lease')).toBe(true);
    const status = writes.find((w) => w.resource === 'mc' && w.verb === 'patch')!.obj.status as { conditions: { type: string; status: string; reason: string; message: string }[]; lastHeartbeatTime?: string };
    expect(status.conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ManagementClusterUnreachable',
      message: "The syncer runs but cannot reach the management cluster's API (connect ECONNREFUSED 10.0.0.9:6443); no new HostedClusters are placed here",
    });
    expect(status.lastHeartbeatTime).toBeDefined();
  });

  it.each([
    { name: 'Ready again after a lost spell', ready: { type: 'Ready', status: 'False', reason: 'HeartbeatExpired', lastTransitionTime: '2026-12-01T17:00:00Z' }, observed: true, want: ['Normal ManagementClusterReady Management cluster mgmt-1 is Ready again (was False, HeartbeatExpired): its syncer reaches it and reports'] },
    { name: 'first Ready', ready: undefined, observed: true, want: ['Normal ManagementClusterReady Management cluster mgmt-1 is Ready: its syncer reaches it and reports'] },
    { name: 'still Ready (every other heartbeat)', ready: { type: 'Ready', status: 'True', reason: 'SyncerHeartbeat' }, observed: true, want: [] },
    { name: 'not Ready and still unreachable', ready: { type: 'Ready', status: 'False', reason: 'ManagementClusterUnreachable' }, observed: false, want: [] },
    {
      name: 'first found unreachable: a Warning instead',
      ready: { type: 'Ready', status: 'True', reason: 'SyncerHeartbeat' },
      observed: false,
      want: ["Warning ManagementClusterUnreachable Management cluster mgmt-1 is not Ready: The syncer runs but cannot reach the management cluster's API (connect ECONNREFUSED); no new HostedClusters are placed here"],
    },
  ])('records ManagementClusterReady when a heartbeat makes it Ready, ManagementClusterUnreachable when one first cannot reach it: $name', async ({ ready, observed, want }) => {
    const { upstream } = fleetUpstream({});
    const get = upstream.get.bind(upstream);
    upstream.get = (async (ref: unknown, ...rest: unknown[]) => {
      const o = await (get as (...a: unknown[]) => Promise<KubeObject>)(ref, ...rest);
      return ref === ManagementClusterResource && ready ? { ...o, status: { conditions: [ready] } } : o;
    }) as RestClient['get'];
    const events: string[] = [];
    const opts: HeartbeatOptions = {
      ...options(upstream, new FakeClock(), new AbortController().signal, []),
      recordEvent: (_mc, type, reason, message) => void events.push(`${type} ${reason} ${message}`),
      ...(observed ? {} : { observe: async () => Promise.reject(new Error('connect ECONNREFUSED')) }),
    };
    await beat(opts).catch(() => {});
    expect(events).toEqual(want);
  });

  it('says on the ManagementCluster, once per episode, that the control center refuses its heartbeat (403), which would otherwise only read HeartbeatExpired', async () => {
    const { upstream } = fleetUpstream({});
    const patch = upstream.patch.bind(upstream);
    let refuse = true;
    upstream.patch = (async (...a: unknown[]) => {
      if (refuse) throw new ApiError(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'managementclusters.controlcenter.hcc.dev "mgmt-1" is forbidden: may not change status.clusterID once set (A)' });
      return (patch as (...b: unknown[]) => Promise<unknown>)(...a);
    }) as RestClient['patch'];
    const events: string[] = [];
    const opts: HeartbeatOptions = { ...options(upstream, new FakeClock(), new AbortController().signal, []), recordEvent: (_mc, type, reason, message) => void events.push(`${type} ${reason} ${message}`) };
    await expect(beat(opts)).rejects.toThrow(/forbidden/);
    await expect(beat(opts)).rejects.toThrow(/forbidden/);
    const said = `Warning HeartbeatRefused The control center refuses the heartbeat of mgmt-1's syncer: managementclusters.controlcenter.hcc.dev "mgmt-1" is forbidden: may not change status.clusterID once set (A)`;
    expect(events.filter((e) => e.startsWith('Warning'))).toEqual([said]);
    // Accepted again, then refused again: a new episode, a new Event.
    refuse = false;
    await beat(opts);
    refuse = true;
    await expect(beat(opts)).rejects.toThrow(/forbidden/);
    expect(events.filter((e) => e.startsWith('Warning'))).toEqual([said, said]);
  });

  it('tells onReached which side answered: both when all went well, only upstream when the management cluster did not, neither when the control center did not', async () => {
    const sides = async (o: { observe?: boolean; upstreamFails?: boolean }) => {
      const { upstream } = fleetUpstream({});
      if (o.upstreamFails) upstream.get = (async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6443'))) as RestClient['get'];
      const reached: string[] = [];
      await beat({
        ...options(upstream, new FakeClock(), new AbortController().signal, []),
        onReached: (side) => void reached.push(side),
        ...(o.observe === false ? { observe: async () => Promise.reject(new Error('connect ECONNREFUSED')) } : {}),
      }).catch(() => {});
      return reached;
    };
    expect(await sides({})).toEqual(['upstream', 'downstream']);
    expect(await sides({ observe: false })).toEqual(['upstream']);
    expect(await sides({ upstreamFails: true })).toEqual([]);
  });

  it('announces its Lease duration in the status it writes (4 × a 60 s interval)', async () => {
    const { upstream, writes } = fleetUpstream({});
    await run(upstream, 240);
    const lease = writes.find((w) => w.resource === 'lease')!;
    expect((lease.obj.spec as Record<string, unknown>).leaseDurationSeconds).toBe(240);
    const status = writes.find((w) => w.resource === 'mc' && w.verb === 'patch')!.obj.status as Record<string, unknown>;
    expect(status.leaseDurationSeconds).toBe(240);
  });

  it('creates its Lease owned by its ManagementCluster, so the garbage collector deletes it with the cluster', async () => {
    const { upstream, writes } = fleetUpstream({});
    await run(upstream);
    expect(writes.map((w) => `${w.verb} ${w.resource}`)).toEqual(['create lease', 'patch mc']);
    expect((writes[0]!.obj.metadata as KubeObject['metadata']).ownerReferences).toEqual([owner]);
  });

  it('adds the reference on the next renewal of a Lease an older syncer created without one, keeping its spec', async () => {
    const lease = { metadata: { name: 'mgmt-1', namespace: 'hcc-system', resourceVersion: '3' }, spec: { holderIdentity: 'test', leaseDurationSeconds: 40, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z' } };
    const { upstream, writes } = fleetUpstream({ lease });
    await run(upstream);
    expect(writes[0]).toMatchObject({ verb: 'update', resource: 'lease' });
    const meta = writes[0]!.obj.metadata as KubeObject['metadata'];
    expect(meta).toMatchObject({ name: 'mgmt-1', namespace: 'hcc-system', resourceVersion: '3', ownerReferences: [owner] });
    expect(writes[0]!.obj.spec).toMatchObject({ holderIdentity: 'test', acquireTime: '2026-01-01T00:00:00.000000Z' });
  });

  it('points a Lease owned by an earlier ManagementCluster of the same name at the current one, keeping other owners', async () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'uid-cm' };
    const lease = { metadata: { name: 'mgmt-1', namespace: 'hcc-system', resourceVersion: '3', ownerReferences: [{ ...owner, uid: 'uid-old' }, other] }, spec: { holderIdentity: 'test' } };
    const { upstream, writes } = fleetUpstream({ lease, uid: 'uid-new' });
    await run(upstream);
    expect((writes[0]!.obj.metadata as KubeObject['metadata']).ownerReferences).toEqual([other, { ...owner, uid: 'uid-new' }]);
  });
});

describe('beat: one management cluster under two ManagementCluster names', () => {
  const other = (name: string, created: string, clusterID: string, ready: 'True' | 'False' = 'True'): ManagementCluster => ({
    metadata: { name, creationTimestamp: created },
    spec: {},
    status: { clusterID, conditions: [{ type: 'Ready', status: ready, reason: ready === 'True' ? 'SyncerHeartbeat' : 'HeartbeatExpired' }] },
  });
  /** One heartbeat of mgmt-1 (created 2026-12-01T10:00:00Z, its cluster's ID `uid-ks`, Ready as `was`) among `fleet`. */
  const beatAmong = async (fleet: ManagementCluster[] | Error, was?: { type: string; status: string; reason: string }[]) => {
    const { upstream, writes } = fleetUpstream({});
    const get = upstream.get.bind(upstream);
    upstream.get = (async (ref: unknown, ...rest: unknown[]) => {
      const o = (await (get as (...a: unknown[]) => Promise<ManagementCluster>)(ref, ...rest)) as ManagementCluster;
      if (ref !== ManagementClusterResource) return o;
      return { ...o, metadata: { ...o.metadata, creationTimestamp: '2026-12-01T10:00:00Z' }, ...(was ? { status: { conditions: was } } : {}) };
    }) as RestClient['get'];
    upstream.list = (async (ref: unknown) => {
      if (ref !== ManagementClusterResource) throw new Error('unexpected list');
      if (fleet instanceof Error) throw fleet;
      return { items: fleet, metadata: {} };
    }) as RestClient['list'];
    const events: string[] = [];
    const lines: { msg?: string; duplicateOf?: string }[] = [];
    let siblings: string[] | undefined;
    await beat({
      ...options(upstream, new FakeClock(), new AbortController().signal, lines),
      observe: async () => ({ namespaces: 3, hostedClusters: 2, supportedVersions: [], clusterID: 'uid-ks' }),
      recordEvent: (_mc, type, reason, message) => void events.push(`${type} ${reason} ${message}`),
      onSiblings: (names) => (siblings = names),
    });
    const status = writes.find((w) => w.resource === 'mc' && w.verb === 'patch')!.obj.status as NonNullable<ManagementCluster['status']>;
    const conditions = Object.fromEntries(status.conditions!.map((c) => [c.type, c]));
    return { ready: conditions.Ready!, duplicate: conditions.DuplicateCluster, status, events, lines, siblings };
  };
  const wasReady = { type: 'Ready', status: 'True', reason: 'SyncerHeartbeat' };
  const wasDuplicate = { type: 'DuplicateCluster', status: 'True', reason: 'SameClusterID' };

  it('reports its cluster ID, and DuplicateCluster=True (with a Warning Event) when a live one registered earlier reports the same; it stays Ready', async () => {
    const { ready, duplicate, status, events, lines } = await beatAmong([other('mgmt-0', '2026-12-01T09:00:00Z', 'uid-ks'), other('mgmt-2', '2026-12-01T08:00:00Z', 'uid-other')], [wasReady]);
    const message =
      'Management cluster mgmt-1 is the same cluster as ManagementCluster mgmt-0 (cluster ID uid-ks, the uid of its kube-system namespace), registered earlier: no new HostedClusters are placed here, so its capacity is not offered twice (what is placed here stays and is served). To remove this name: delete what is placed here while its syncer runs, stop the syncer, then kubectl delete managementcluster mgmt-1';
    expect(duplicate).toMatchObject({ status: 'True', reason: 'SameClusterID', message });
    expect(ready).toMatchObject({ status: 'True', reason: 'SyncerHeartbeat' });
    // The rest is reported as usual.
    expect(status).toMatchObject({ clusterID: 'uid-ks', hostedClusters: 2, budget: 3 });
    expect(events).toEqual([`Warning DuplicateCluster ${message}`]);
    expect(lines).toMatchObject([{ msg: message, duplicateOf: 'mgmt-0' }]);
  });

  it('tells onSiblings the other live names of this management cluster, earlier or later, not lost ones', async () => {
    const { siblings } = await beatAmong([
      other('mgmt-0', '2026-12-01T09:00:00Z', 'uid-ks'),
      other('mgmt-3', '2026-12-01T11:00:00Z', 'uid-ks'),
      other('mgmt-4', '2026-12-01T11:00:00Z', 'uid-ks', 'False'),
      other('mgmt-2', '2026-12-01T08:00:00Z', 'uid-other'),
    ]);
    expect(siblings).toEqual(['mgmt-0', 'mgmt-3']);
    expect((await beatAmong(new Error('403 forbidden'))).siblings).toEqual([]);
  });

  it('no Event again while it stays a duplicate', async () => {
    const { duplicate, events } = await beatAmong([other('mgmt-0', '2026-12-01T09:00:00Z', 'uid-ks')], [wasReady, wasDuplicate]);
    expect(duplicate?.status).toBe('True');
    expect(events).toEqual([]);
  });

  it.each([
    { name: 'the earlier one is not Ready (lost): this one takes placements', fleet: [other('mgmt-0', '2026-12-01T09:00:00Z', 'uid-ks', 'False')] },
    { name: 'the other one was registered later: it is the duplicate', fleet: [other('mgmt-3', '2026-12-01T11:00:00Z', 'uid-ks')] },
    { name: 'another cluster', fleet: [other('mgmt-0', '2026-12-01T09:00:00Z', 'uid-other')] },
    { name: 'the fleet cannot be listed (a policy without list): Ready, the scheduler still checks', fleet: new Error('403 forbidden') },
  ])('no DuplicateCluster condition (a former one removed) when $name', async ({ fleet }) => {
    const { ready, duplicate, status, events } = await beatAmong(fleet, [wasReady, wasDuplicate]);
    expect(duplicate).toBeUndefined();
    expect(ready).toMatchObject({ status: 'True', reason: 'SyncerHeartbeat' });
    expect(status.clusterID).toBe('uid-ks');
    expect(events).toEqual([]);
  });
});

describe('leaseOwnerReferences', () => {
  it('leaves the references alone while the ManagementCluster has no uid (nothing to point at)', () => {
    const mc: ManagementCluster = { metadata: { name: 'mgmt-1' }, spec: {} };
    expect(leaseOwnerReferences(undefined, mc)).toBeUndefined();
    const refs = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u' }];
    expect(leaseOwnerReferences(refs, mc)).toBe(refs);
  });
});

describe('runHeartbeats when the control center refuses the heartbeat', () => {
  it('logs the refusal at warn once per episode, then at debug, and again after a heartbeat went through', async () => {
    const { upstream } = fleetUpstream({});
    const patch = upstream.patch.bind(upstream);
    let refuse = true;
    let refused = 0;
    upstream.patch = (async (...a: unknown[]) => {
      if (refuse) {
        refused++;
        throw new ApiError(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'forbidden: may not change status.clusterID once set (A)' });
      }
      return (patch as (...b: unknown[]) => Promise<unknown>)(...a);
    }) as RestClient['patch'];
    const lines: { msg?: string }[] = [];
    const ac = new AbortController();
    const running = runHeartbeats({ ...options(upstream, new FakeClock(), ac.signal, lines), intervalMs: 20 });
    const warns = () => lines.filter((l) => l.msg === 'heartbeat failed').length;
    /** Until `n` more heartbeats were refused (polled; 10 s at most). */
    const refusedMore = async (n: number) => {
      const until = refused + n;
      for (let i = 0; i < 500 && refused < until; i++) await new Promise((r) => setTimeout(r, 20));
      expect(refused).toBeGreaterThanOrEqual(until);
    };
    try {
      await refusedMore(5);
      expect(warns()).toBe(1);
      refuse = false;
      await running; // the first heartbeat that goes through
      refuse = true;
      await refusedMore(3);
      expect(warns()).toBe(2);
    } finally {
      ac.abort();
      await running;
    }
  });
});

describe('runHeartbeats with a trigger', () => {
  it('beats soon when asked, coalescing requests, at most one heartbeat per spacing, never two at once', async () => {
    const { upstream, writes } = fleetUpstream({});
    const statusWrites = () => writes.filter((w) => w.resource === 'mc' && w.verb === 'patch').length;
    const trigger = new HeartbeatTrigger();
    const ac = new AbortController();
    // An hour between heartbeats: any beat after the first is a triggered one.
    await runHeartbeats({ ...options(upstream, new FakeClock(), ac.signal, []), intervalMs: 3_600_000, trigger });
    try {
      expect(statusWrites()).toBe(1);
      for (let i = 0; i < 5; i++) trigger.request();
      await new Promise((r) => setTimeout(r, MinTriggeredBeatSpacingMs + 300));
      expect(statusWrites()).toBe(2);
      trigger.request();
      await new Promise((r) => setTimeout(r, 200));
      // The spacing holds the next one back...
      expect(statusWrites()).toBe(2);
      await new Promise((r) => setTimeout(r, MinTriggeredBeatSpacingMs));
      // ...then it comes.
      expect(statusWrites()).toBe(3);
    } finally {
      ac.abort();
    }
  });
});

describe('leaseConflict: one ManagementCluster, one management cluster', () => {
  const now = new Date('2026-12-02T12:00:30Z');
  const lease = (holder: string, clusterID: string | undefined, renewTime = '2026-12-02T12:00:20.000000Z'): KubeObject & { spec: Record<string, unknown> } => ({
    metadata: { name: 'mgmt-1', namespace: 'hcc-system', ...(clusterID ? { annotations: { 'controlcenter.hcc.dev/cluster-id': clusterID } } : {}) },
    spec: { holderIdentity: holder, leaseDurationSeconds: 40, renewTime },
  });
  it.each([
    { name: 'our own Lease', l: lease('me', 'A'), ours: 'A', conflict: false },
    { name: "a restarted syncer of the same cluster (another identity, the same cluster ID)", l: lease('old', 'A'), ours: 'A', conflict: false },
    { name: 'a Lease an older syncer wrote (no cluster ID)', l: lease('old', undefined), ours: 'A', conflict: false },
    { name: "another cluster's, expired: still theirs (an outage never hands the name over)", l: lease('other', 'B', '2026-12-02T11:59:40.000000Z'), ours: 'A', conflict: true },
    { name: "another cluster's, expired, and ours cannot be reached", l: lease('other', 'B', '2026-12-02T11:59:40.000000Z'), ours: undefined, conflict: true },
    { name: "another cluster's, live", l: lease('other', 'B'), ours: 'A', conflict: true },
    { name: "another cluster's, live, and ours cannot be reached", l: lease('other', 'B'), ours: undefined, conflict: true },
  ])('$name', ({ l, ours, conflict }) => {
    const why = leaseConflict(l, 'me', ours, now);
    expect(why !== undefined).toBe(conflict);
    if (why && ours && l.spec.renewTime === '2026-12-02T12:00:20.000000Z') {
      expect(why).toBe(
        'the syncer other of another management cluster (cluster ID B; this one is A) holds Lease hcc-system/mgmt-1 (renewed 10s ago): two syncers have the same --name, and this one serves nothing; if the management cluster behind mgmt-1 really changed (rebuilt, or the name moved), delete the Lease and clear the cluster ID: kubectl delete lease -n hcc-system mgmt-1; kubectl patch managementcluster mgmt-1 --subresource=status --type=merge -p \'{"status":{"clusterID":null}}\'',
      );
    }
  });
});
