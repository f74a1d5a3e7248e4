/**
 * The binding subresource over HTTP: one write of the placement label and the Scheduled
 * condition, guarded by resourceVersion, with metadata rules and placement admission applied and
 * the stored object it started from left untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs, ConditionScheduled, ControlCenterAPIVersion, LabelManagementCluster, type KubeObject } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';
import { storageKey } from '../registry/types.js';
import { hostedClusterBody } from '../testing/fixtures.js';

const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';

const hostedCluster = (name: string): KubeObject => hostedClusterBody(name, 'clusters', {}, { annotations: { keep: 'me' } });

describe('HostedCluster binding subresource', () => {
  let cc: RunningControlCenter;
  const scheduler = 'scheduler-token';
  const call = async (token: string, method: string, url: string, body?: unknown) => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { code: res.status, warning: res.headers.get('warning') ?? '', body: (await res.json()) as KubeObject & { reason?: string; message?: string } };
  };
  const bind = (name: string, rv: string | undefined, target: string) =>
    call(scheduler, 'POST', `${HCS}/${name}/binding`, { apiVersion: ControlCenterAPIVersion, kind: 'Binding', metadata: { name, resourceVersion: rv }, target: { name: target } });

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'], schedulerToken: scheduler });
    // A name over 63 characters cannot be registered (custom-resource-writes.test.ts); a binding to one is still refused below.
    for (const name of ['mgmt-1', 'mgmt-2']) {
      const r = await call(cc.adminToken, 'POST', '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters', { apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', metadata: { name }, spec: {} });
      expect(r.code, JSON.stringify(r.body)).toBe(201);
    }
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('sets the label and the Scheduled condition in one write and changes nothing else', async () => {
    const created = await call(cc.adminToken, 'POST', HCS, hostedCluster('hc-1'));
    expect(created.code).toBe(201);
    // A status condition the binding must keep.
    const withStatus = await call(cc.adminToken, 'PUT', `${HCS}/hc-1/status`, {
      ...created.body,
      status: { conditions: [{ type: 'Available', status: 'False', reason: 'Waiting', message: 'not yet', lastTransitionTime: '2026-11-30T00:00:00Z', observedGeneration: 1 }] },
    });
    expect(withStatus.code).toBe(200);
    const info = cc.registry.lookup('hypershift.openshift.io', 'v1beta1', 'hostedclusters')!;
    const stored = cc.store.get(storageKey(info, 'clusters', 'hc-1'));
    const storedBefore = JSON.stringify(stored!.object);

    const r = await bind('hc-1', withStatus.body.metadata.resourceVersion, 'mgmt-1');
    expect(r.code, JSON.stringify(r.body)).toBe(201);
    // As pods/binding: a Status, not the object (the binder sees the result on its watch).
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const after = (await call(cc.adminToken, 'GET', `${HCS}/hc-1`)).body;
    expect(after.metadata.labels?.[LabelManagementCluster]).toBe('mgmt-1');
    const conds = (after.status as { conditions: { type: string; status: string; message: string }[] }).conditions;
    expect(conds.find((c) => c.type === ConditionScheduled)).toMatchObject({ status: 'True', message: 'Placed on management cluster mgmt-1' });
    // No observedGeneration: the placement holds for later generations (kubectl wait --for=condition compares it).
    expect(conds.find((c) => c.type === ConditionScheduled)?.observedGeneration).toBeUndefined();
    expect(conds.find((c) => c.type === 'Available')).toMatchObject({ status: 'False', reason: 'Waiting' });
    expect(after.spec).toEqual(withStatus.body.spec);
    expect(after.metadata.annotations).toEqual({ keep: 'me' });
    expect(after.metadata.generation).toBe(withStatus.body.metadata.generation);
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(withStatus.body.metadata.resourceVersion));
    // The object the binding started from was copied, not changed in place.
    expect(JSON.stringify(stored!.object)).toBe(storedBefore);
  });

  it('refuses a stale resourceVersion (409), a binding by anyone but the scheduler (422) and a second placement (409)', async () => {
    const created = await call(cc.adminToken, 'POST', HCS, hostedCluster('hc-2'));
    const stale = await bind('hc-2', String(Number(created.body.metadata.resourceVersion) - 1), 'mgmt-1');
    expect(stale.code).toBe(409);
    // Only the scheduler's identity binds, not even the admin.
    const admin = await call(cc.adminToken, 'POST', `${HCS}/hc-2/binding`, { apiVersion: ControlCenterAPIVersion, kind: 'Binding', metadata: { name: 'hc-2', resourceVersion: created.body.metadata.resourceVersion }, target: { name: 'mgmt-1' } });
    expect(admin.code).toBe(422);
    expect(admin.body.message).toContain('only the scheduler places HostedClusters');
    expect((await bind('hc-2', created.body.metadata.resourceVersion, 'mgmt-1')).code).toBe(201);
    // Placed once: binding again, to another cluster or the same one, is a conflict (as pods/binding).
    for (const target of ['mgmt-2', 'mgmt-1']) {
      const again = await bind('hc-2', undefined, target);
      expect(again.code).toBe(409);
      expect(again.body.message).toContain('HostedCluster hc-2 is already placed on management cluster mgmt-1');
    }
  });

  it('refuses a Binding whose metadata Go cannot decode (a resourceVersion that is not a string, labels that are not a map) with a 400 naming the field, and writes nothing', async () => {
    const created = await call(cc.adminToken, 'POST', HCS, hostedCluster('hc-typed'));
    expect(created.code).toBe(201);
    const rv = Number(created.body.metadata.resourceVersion);
    const cases: [unknown, string][] = [
      [{ name: 'hc-typed', resourceVersion: rv }, 'json: cannot unmarshal number into Go struct field Binding.metadata.resourceVersion of type string'],
      [{ name: 'hc-typed', labels: 'a=b' }, 'json: cannot unmarshal string into Go struct field Binding.metadata.labels of type map[string]string'],
      ['hc-typed', 'json: cannot unmarshal string into Go struct field Binding.metadata of type struct'],
    ];
    for (const [metadata, message] of cases) {
      const r = await call(scheduler, 'POST', `${HCS}/hc-typed/binding`, { apiVersion: ControlCenterAPIVersion, kind: 'Binding', metadata, target: { name: 'mgmt-1' } });
      expect(r.code, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: `Binding in version "v1alpha1" cannot be handled as a Binding: ${message}` });
    }
    const after = (await call(cc.adminToken, 'GET', `${HCS}/hc-typed`)).body;
    expect(after.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    expect(after.metadata.labels?.[LabelManagementCluster]).toBeUndefined();
    // The same Binding with the resourceVersion as a string places it.
    expect((await bind('hc-typed', String(rv), 'mgmt-1')).code).toBe(201);
  });

  it('refuses a HostedCluster being deleted, a Binding for another namespace, and a condition list that would break its schema', async () => {
    const deleting = await call(cc.adminToken, 'POST', HCS, { ...hostedCluster('hc-del'), metadata: { name: 'hc-del', namespace: 'clusters', finalizers: ['example.com/hold'] } });
    expect(deleting.code).toBe(201);
    expect((await call(cc.adminToken, 'DELETE', `${HCS}/hc-del`)).code).toBe(200);
    const gone = await bind('hc-del', undefined, 'mgmt-1');
    expect(gone.code).toBe(409);
    expect(gone.body.message).toContain('HostedCluster hc-del is being deleted, cannot be placed');

    const other = await call(scheduler, 'POST', `${HCS}/hc-del/binding`, { apiVersion: ControlCenterAPIVersion, kind: 'Binding', metadata: { name: 'hc-del', namespace: 'elsewhere' }, target: { name: 'mgmt-1' } });
    expect(other.code).toBe(400);
    expect(other.body.message).toContain('the namespace of the provided object does not match the namespace sent on the request');

    // HostedCluster status.conditions holds at most 100 items; a binding that adds the 101st is refused.
    const full = await call(cc.adminToken, 'POST', HCS, hostedCluster('hc-full'));
    const conditions = Array.from({ length: 100 }, (_, i) => ({ type: `Bench${i}`, status: 'True', reason: 'Bench', message: 'm', lastTransitionTime: '2026-11-30T00:00:00Z' }));
    const withStatus = await call(cc.adminToken, 'PUT', `${HCS}/hc-full/status`, { ...full.body, status: { conditions } });
    expect(withStatus.code, JSON.stringify(withStatus.body)).toBe(200);
    const tooMany = await bind('hc-full', undefined, 'mgmt-1');
    expect(tooMany.code).toBe(422);
    expect(tooMany.body.message).toContain('status.conditions: Too many: 101: must have at most 100 items');
    const after = (await call(cc.adminToken, 'GET', `${HCS}/hc-full`)).body;
    expect(after.metadata.labels?.[LabelManagementCluster]).toBeUndefined();
  });

  it('still applies metadata rules and admission: no such cluster, a name too long for a label value', async () => {
    const created = await call(cc.adminToken, 'POST', HCS, hostedCluster('hc-3'));
    const missing = await bind('hc-3', created.body.metadata.resourceVersion, 'mgmt-9');
    expect(missing.code).toBe(422);
    expect(missing.body.message).toContain('no such ManagementCluster');
    const long = await bind('hc-3', created.body.metadata.resourceVersion, `${'a'.repeat(40)}.${'b'.repeat(40)}`);
    expect(long.code).toBe(422);
    expect(long.body.message).toContain('must be no more than 63 characters');
    const unchanged = (await call(cc.adminToken, 'GET', `${HCS}/hc-3`)).body;
    expect(unchanged.metadata.labels?.[LabelManagementCluster]).toBeUndefined();
    expect(unchanged.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  it('keeps the placement through a PUT that leaves it out (kubectl replace), and through a PATCH that removes it, with a warning', async () => {
    const created = await call(cc.adminToken, 'POST', HCS, hostedCluster('hc-keep'));
    expect((await bind('hc-keep', created.body.metadata.resourceVersion, 'mgmt-2')).code).toBe(201);
    const cur = (await call(cc.adminToken, 'GET', `${HCS}/hc-keep`)).body;
    const { [LabelManagementCluster]: _placed, ...otherLabels } = cur.metadata.labels ?? {};
    const put = await call(cc.adminToken, 'PUT', `${HCS}/hc-keep`, { ...cur, metadata: { ...cur.metadata, labels: otherLabels } });
    expect(put.code, JSON.stringify(put.body)).toBe(200);
    expect(put.body.metadata.labels?.[LabelManagementCluster]).toBe('mgmt-2');
    expect(put.warning).toBe('');

    const patch = async (type: string, body: unknown) => {
      const res = await fetch(`${cc.url}${HCS}/hc-keep`, { method: 'PATCH', headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': type }, body: JSON.stringify(body) });
      return { code: res.status, warning: res.headers.get('warning'), body: (await res.json()) as { metadata?: { labels?: Record<string, string> } } };
    };
    for (const [type, body] of [
      ['application/merge-patch+json', { metadata: { labels: { [LabelManagementCluster]: null } } }], // kubectl label hc/x key-
      ['application/json-patch+json', [{ op: 'remove', path: `/metadata/labels/${LabelManagementCluster.replace('/', '~1')}` }]],
    ] as const) {
      const r = await patch(type, body);
      expect(r.code, `${type} ${JSON.stringify(r.body)}`).toBe(200);
      expect(r.body.metadata?.labels?.[LabelManagementCluster]).toBe('mgmt-2');
      expect(r.warning).toContain(`metadata.labels[${LabelManagementCluster}]: kept as \\"mgmt-2\\": the placement is the scheduler's and a placed HostedCluster never moves`);
    }
    // A change is still refused.
    const moved = await patch('application/merge-patch+json', { metadata: { labels: { [LabelManagementCluster]: 'mgmt-1' } } });
    expect(moved.code).toBe(422);
    expect((await call(cc.adminToken, 'GET', `${HCS}/hc-keep`)).body.metadata.labels?.[LabelManagementCluster]).toBe('mgmt-2');
  });

  it('keeps the placement through a PATCH that drops the whole labels map (client-side kubectl apply of a manifest whose labels are gone), dropping the rest', async () => {
    const created = await call(cc.adminToken, 'POST', HCS, hostedClusterBody('hc-nolabels', 'clusters', {}, { labels: { team: 'a' } }));
    expect(created.code, JSON.stringify(created.body)).toBe(201);
    expect((await bind('hc-nolabels', created.body.metadata.resourceVersion, 'mgmt-2')).code).toBe(201);
    for (const [type, body] of [
      ['application/merge-patch+json', { metadata: { labels: null, annotations: { step: 'merge' } } }],
      ['application/json-patch+json', [{ op: 'remove', path: '/metadata/labels' }]],
    ] as const) {
      const res = await fetch(`${cc.url}${HCS}/hc-nolabels`, { method: 'PATCH', headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': type }, body: JSON.stringify(body) });
      const got = (await res.json()) as { metadata?: { labels?: Record<string, string> } };
      expect(res.status, `${type} ${JSON.stringify(got)}`).toBe(200);
      expect(got.metadata?.labels, type).toEqual({ [LabelManagementCluster]: 'mgmt-2' });
    }
    const stored = (await call(cc.adminToken, 'GET', `${HCS}/hc-nolabels`)).body;
    expect([stored.metadata.labels, stored.metadata.annotations?.step]).toEqual([{ [LabelManagementCluster]: 'mgmt-2' }, 'merge']);
  });

  it('warns when a server-side apply that named the placement label drops all its labels (the label is kept), and not for a manifest that never named it', async () => {
    const created = await call(cc.adminToken, 'POST', HCS, hostedCluster('hc-ssa'));
    expect((await bind('hc-ssa', created.body.metadata.resourceVersion, 'mgmt-2')).code).toBe(201);
    const apply = async (labels: Record<string, string> | undefined, manager: string) => {
      const body = hostedClusterBody('hc-ssa', 'clusters', {}, labels ? { labels } : {});
      const res = await fetch(`${cc.url}${HCS}/hc-ssa?fieldManager=${manager}`, { method: 'PATCH', headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(body) });
      return { code: res.status, warning: res.headers.get('warning') ?? '', body: (await res.json()) as { metadata?: { labels?: Record<string, string> } } };
    };
    // An exported manifest, placement label and all, applied back: the applier owns the label.
    expect((await apply({ [LabelManagementCluster]: 'mgmt-2' }, 'gitops')).code).toBe(200);
    const dropped = await apply(undefined, 'gitops');
    expect(dropped.code).toBe(200);
    expect(dropped.body.metadata?.labels?.[LabelManagementCluster]).toBe('mgmt-2');
    expect(dropped.warning).toContain(`metadata.labels[${LabelManagementCluster}]: kept as \\"mgmt-2\\"`);
    // A manifest that never named it: no warning.
    const other = await apply(undefined, 'other');
    expect([other.code, other.warning]).toEqual([200, '']);
  });

  it('creates a HostedCluster or NodePool that arrives with a placement (an exported manifest, replace --force) without it, with a warning; the scheduler keeps its own', async () => {
    const placedHC = { ...hostedCluster('restored'), metadata: { name: 'restored', namespace: 'clusters', labels: { [LabelManagementCluster]: 'mgmt-1', team: 'a' } } };
    const created = await call(cc.adminToken, 'POST', HCS, placedHC);
    expect(created.code, JSON.stringify(created.body)).toBe(201);
    expect(created.body.metadata.labels).toEqual({ team: 'a' });
    expect(created.warning).toContain(`metadata.labels[${LabelManagementCluster}]: \\"mgmt-1\\" ignored: only the scheduler places HostedClusters, so this one is scheduled again`);
    const np = await call(cc.adminToken, 'POST', '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/nodepools', {
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'restored-np', namespace: 'clusters', labels: { [LabelManagementCluster]: 'mgmt-1' } },
      spec: { clusterName: 'restored', replicas: 0, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64' } },
    });
    expect(np.code, JSON.stringify(np.body)).toBe(201);
    expect(np.body.metadata.labels ?? {}).toEqual({});
    expect(np.warning).toContain("only the scheduler places NodePools, so this one follows its HostedCluster's placement");
    // Adding it later is still refused (placement admission); the scheduler's identity may create with it.
    const relabel = await call(cc.adminToken, 'PUT', `${HCS}/restored`, { ...created.body, metadata: { ...created.body.metadata, labels: { [LabelManagementCluster]: 'mgmt-1' } } });
    expect(relabel.code).toBe(422);
    const bySched = await call(scheduler, 'POST', HCS, { ...hostedCluster('by-sched'), metadata: { name: 'by-sched', namespace: 'clusters', labels: { [LabelManagementCluster]: 'mgmt-2' } } });
    expect(bySched.code, JSON.stringify(bySched.body)).toBe(201);
    expect(bySched.body.metadata.labels).toEqual({ [LabelManagementCluster]: 'mgmt-2' });
    expect(bySched.warning).toBe('');
  });

  it("never puts more HostedClusters on a cluster than its capacity, whatever the binder's view: concurrent binds past it get 409", async () => {
    const mcs = '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters';
    expect((await call(cc.adminToken, 'POST', mcs, { apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', metadata: { name: 'small' }, spec: { capacity: 3 } })).code).toBe(201);
    const rvs = new Map<string, string>();
    for (let i = 0; i < 8; i++) {
      const c = await call(cc.adminToken, 'POST', HCS, hostedCluster(`cap-${i}`));
      expect(c.code).toBe(201);
      rvs.set(`cap-${i}`, c.body.metadata.resourceVersion!);
    }
    // Eight binds at once, as two schedulers from two views (or a deposed leader's binds in flight) could send.
    const results = await Promise.all([...rvs].map(([name, rv]) => bind(name, rv, 'small')));
    expect(results.filter((r) => r.code === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.code !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.code).toBe(409);
      expect(r.body.message).toMatch(/^Operation cannot be fulfilled on hostedclusters\/binding.hypershift.openshift.io "cap-\d": management cluster small holds 3 HostedClusters, its capacity is 3: no room for clusters\/cap-\d$/);
    }
    const list = (await call(cc.adminToken, 'GET', `${HCS}?labelSelector=${encodeURIComponent(`${LabelManagementCluster}=small`)}`)).body as unknown as { items: KubeObject[] };
    expect(list.items).toHaveLength(3);
    // A refused bind leaves its HostedCluster as it was (unplaced, same resourceVersion).
    const unplaced = [...rvs.keys()].filter((n) => !list.items.some((i) => i.metadata.name === n));
    for (const name of unplaced) expect((await call(cc.adminToken, 'GET', `${HCS}/${name}`)).body.metadata.resourceVersion).toBe(rvs.get(name));
    // Room again once one is deleted, or the capacity is raised.
    expect((await call(cc.adminToken, 'DELETE', `${HCS}/${list.items[0]!.metadata.name}`)).code).toBe(200);
    expect((await bind(unplaced[0]!, rvs.get(unplaced[0]!), 'small')).code).toBe(201);
    expect((await bind(unplaced[1]!, rvs.get(unplaced[1]!), 'small')).code).toBe(409);
    const patched = await fetch(`${cc.url}${mcs}/small`, { method: 'PATCH', headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { capacity: 4 } }) });
    expect(patched.status).toBe(200);
    expect((await bind(unplaced[1]!, rvs.get(unplaced[1]!), 'small')).code).toBe(201);
    // A cluster without a capacity takes any number.
    expect((await bind(unplaced[2]!, rvs.get(unplaced[2]!), 'mgmt-2')).code).toBe(201);
  });

  it('is listed in discovery as hostedclusters/binding, create only, as pods/binding is', async () => {
    const list = (await call(cc.adminToken, 'GET', '/apis/hypershift.openshift.io/v1beta1')).body as unknown as { resources: { name: string; verbs: string[]; kind: string; group?: string }[] };
    expect(list.resources).toContainEqual(expect.objectContaining({ name: 'hostedclusters/binding', kind: 'Binding', group: 'controlcenter.hcc.dev', verbs: ['create'] }));
    expect(list.resources.map((r) => r.name)).not.toContain('nodepools/binding');
    const res = await fetch(`${cc.url}/apis`, { headers: { authorization: `Bearer ${cc.adminToken}`, accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const groups = (await res.json()) as { items: { metadata: { name: string }; versions: { version: string; resources: { resource: string; subresources?: { subresource: string; verbs: string[] }[] }[] }[] }[] };
    const hc = groups.items.find((g) => g.metadata.name === 'hypershift.openshift.io')!.versions.find((v) => v.version === 'v1beta1')!.resources.find((r) => r.resource === 'hostedclusters')!;
    expect(hc.subresources).toContainEqual(expect.objectContaining({ subresource: 'binding', verbs: ['create'] }));
  });

  it('answers any method but POST on a binding with 405, as kube-apiserver answers pods/NAME/binding', async () => {
    expect((await call(cc.adminToken, 'POST', HCS, hostedCluster('hc-405'))).code).toBe(201);
    for (const [method, body] of [['GET'], ['PUT', { kind: 'Binding', apiVersion: ControlCenterAPIVersion, target: { name: 'mgmt-1' } }], ['PATCH', {}], ['DELETE']] as const) {
      const r = await call(cc.adminToken, method, `${HCS}/hc-405/binding`, body);
      expect([method, r.code, r.body.reason, r.body.message]).toEqual([method, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource']);
    }
    // Nothing was placed by them; a NodePool has no binding at all (404).
    expect((await call(cc.adminToken, 'GET', `${HCS}/hc-405`)).body.metadata.labels?.[LabelManagementCluster]).toBeUndefined();
    expect((await call(cc.adminToken, 'GET', '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/nodepools/np/binding')).code).toBe(404);
  });
});
