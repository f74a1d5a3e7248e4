/**
 * Request semantics a client of kube-apiserver relies on, found different by a break test with
 * raw HTTP and @kubernetes/client-node: repeated query parameters, the body's apiVersion, the
 * namespace of cluster-scoped objects, DELETE across namespaces, immortal namespaces, Namespace
 * status phases, GET at a resourceVersion, the NamespaceTerminating cause and 1 MiB request heads.
 */
import { describe, expect, it, vi } from 'vitest';
import { allCRDs } from '@hcc/crds';
import YAML from 'yaml';
import { request, useTestControlCenter } from '../testing/in-process.js';

const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } });

describe('request semantics', () => {
  const cc = useTestControlCenter({ crds: allCRDs, namespaces: ['hcc-system'] });
  const ns = (name: string) => request(cc(), 'POST', '/api/v1/namespaces', { metadata: { name } });

  it('a repeated labelSelector or fieldSelector counts by its first value, never as no selector', async () => {
    await ns('rep');
    for (const [n, a] of [['c1', '1'], ['c2', '2'], ['c3', '3']] as const) expect((await request(cc(), 'POST', '/api/v1/namespaces/rep/configmaps', cm(n, { a }))).code).toBe(201);
    const names = async (q: string) => ((await request(cc(), 'GET', `/api/v1/namespaces/rep/configmaps?${q}`)).body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name);
    expect(await names('labelSelector=a%3D1&labelSelector=a%3D2')).toEqual(['c1']);
    expect(await names('labelSelector=nonexist&labelSelector=a%3D2')).toEqual([]);
    expect(await names('fieldSelector=metadata.name%3Dc3&fieldSelector=metadata.name%3Dc1')).toEqual(['c3']);
    expect(await names('limit=1&limit=2')).toEqual(['c1']);
    const huge = await request(cc(), 'GET', '/api/v1/namespaces/rep/configmaps?limit=99999999999999999999');
    expect(huge.code).toBe(400);
    expect(huge.body.message).toContain('limit: Invalid value: "99999999999999999999": strconv.ParseInt: parsing "99999999999999999999": value out of range');
    // limit is an int64 as ParseInt reads it: no exponent, fraction or hex, on LISTs and WATCHes.
    for (const bad of ['1e3', '0x10', '1.5', 'two', '']) {
      for (const watch of ['', 'watch=true&']) {
        const r = await request(cc(), 'GET', `/api/v1/namespaces/rep/configmaps?${watch}limit=${encodeURIComponent(bad)}`);
        expect(r.code, `${watch}limit=${bad}`).toBe(400);
        expect(r.body.message).toContain(`limit: Invalid value: "${bad}": strconv.ParseInt: parsing "${bad}": invalid syntax`);
      }
    }
    // 0 or a negative limit is no limit, as kube-apiserver's storage pages only above 0; +2 is 2.
    expect(await names('limit=-1')).toEqual(['c1', 'c2', 'c3']);
    expect(await names('limit=0')).toEqual(['c1', 'c2', 'c3']);
    expect(await names('limit=%2B2')).toEqual(['c1', 'c2']);
    // DELETE of a collection with repeated selectors deletes what the first selects, not everything.
    const del = await request(cc(), 'DELETE', '/api/v1/namespaces/rep/configmaps?labelSelector=nonexist&labelSelector=also-not');
    expect(del.code).toBe(200);
    expect(del.body.items).toEqual([]);
    expect(await names('')).toEqual(['c1', 'c2', 'c3']);
  });

  it('a malformed labelSelector is a 400 whose message says what labels.Parse says, once', async () => {
    for (const [q, want] of [
      ['a%3D%3D%3Db', "unable to parse requirement: found '=', expected: identifier"],
      [encodeURIComponent('bad label!!'), 'unable to parse requirement: '],
    ] as const) {
      const res = await request(cc(), 'GET', `/api/v1/namespaces/default/configmaps?labelSelector=${q}`);
      expect(res.code, q).toBe(400);
      expect(res.body.message, q).toContain(want);
      expect((res.body.message as string).match(/unable to parse requirement/g), q).toHaveLength(1);
    }
  });

  it("refuses a body of another version than the endpoint's, served or not, or a non-string apiVersion", async () => {
    await ns('ver');
    for (const apiVersion of ['v2', 'v1beta1', 'foo']) {
      const r = await request(cc(), 'POST', '/api/v1/namespaces/ver/configmaps', { ...cm('x'), apiVersion });
      expect(r.code).toBe(400);
      expect(r.body.message).toBe(`the API version in the data (${apiVersion}) does not match the expected API version (v1)`);
    }
    const hc = { apiVersion: 'hypershift.openshift.io/v1alpha1', kind: 'HostedCluster', metadata: { name: 'old' }, spec: { networking: { machineCIDR: '192.168.0.0/24' } } };
    const r = await request(cc(), 'POST', '/apis/hypershift.openshift.io/v1beta1/namespaces/ver/hostedclusters', hc);
    expect(r.code).toBe(400);
    expect(r.body.message).toBe('the API version in the data (hypershift.openshift.io/v1alpha1) does not match the expected API version (hypershift.openshift.io/v1beta1)');
    const num = await request(cc(), 'POST', '/api/v1/namespaces/ver/configmaps', { ...cm('x'), apiVersion: 5 });
    expect(num.code).toBe(400);
    expect(num.body.message).toContain('cannot unmarshal number into Go struct field .apiVersion of type string');
    // Nothing was written; an update of another version is refused too.
    expect((await request(cc(), 'GET', '/api/v1/namespaces/ver/configmaps/x')).code).toBe(404);
    expect((await request(cc(), 'POST', '/api/v1/namespaces/ver/configmaps', cm('y'))).code).toBe(201);
    const put = await request(cc(), 'PUT', '/api/v1/namespaces/ver/configmaps/y', { ...cm('y'), apiVersion: 'v2', data: { a: 'b' } });
    expect(put.code).toBe(400);
    expect((await request(cc(), 'GET', '/api/v1/namespaces/ver/configmaps/y')).body.data).toBeUndefined();
  });

  it("clears a cluster-scoped object's metadata.namespace (as kustomize's namespace: sets it) instead of refusing it", async () => {
    const mc = { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name: 'with-ns', namespace: 'foo' }, spec: {} };
    const r = await request(cc(), 'POST', '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters', mc);
    expect(r.code, JSON.stringify(r.body)).toBe(201);
    expect(r.body.metadata.namespace).toBeUndefined();
    const put = await request(cc(), 'PUT', '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters/with-ns', { ...r.body, metadata: { ...r.body.metadata, namespace: 'bar', labels: { x: 'y' } } });
    expect(put.code, JSON.stringify(put.body)).toBe(200);
    expect(put.body.metadata.namespace).toBeUndefined();
    expect(put.body.metadata.labels).toEqual({ x: 'y' });
    const nsr = await request(cc(), 'POST', '/api/v1/namespaces', { metadata: { name: 'scoped', namespace: 'foo' } });
    expect(nsr.code).toBe(201);
    expect(nsr.body.metadata.namespace).toBeUndefined();
  });

  it('serves no DELETE of a built-in kind across namespaces (405); custom resources keep a cluster-wide deletecollection', async () => {
    await ns('keep');
    expect((await request(cc(), 'POST', '/api/v1/namespaces/keep/configmaps', cm('stays'))).code).toBe(201);
    for (const path of ['/api/v1/configmaps', '/api/v1/secrets']) {
      const r = await request(cc(), 'DELETE', path);
      expect(r.code).toBe(405);
      expect(r.body.reason).toBe('MethodNotAllowed');
    }
    expect((await request(cc(), 'GET', '/api/v1/namespaces/keep/configmaps/stays')).code).toBe(200);
    const crs = await request(cc(), 'DELETE', '/apis/hypershift.openshift.io/v1beta1/hostedclusters?dryRun=All');
    expect(crs.code).toBe(200);
    expect(crs.body.kind).toBe('HostedClusterList');
  });

  it('streams a watch as JSON, never YAML: Accept application/yaml alone is 406, with JSON after it JSON', async () => {
    const url = `${cc().url}/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1`;
    const auth = { authorization: `Bearer ${cc().adminToken}` };
    const yamlOnly = await fetch(url, { headers: { ...auth, accept: 'application/yaml' } });
    expect(yamlOnly.status).toBe(406);
    // The 406 Status itself is negotiated as for a list, so it comes as YAML (kube-apiserver's scope.err).
    expect(yamlOnly.headers.get('content-type')).toBe('application/yaml');
    expect(YAML.parse(await yamlOnly.text())).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const either = await fetch(url, { headers: { ...auth, accept: 'application/yaml, application/json' } });
    expect([either.status, either.headers.get('content-type')]).toEqual([200, 'application/json']);
    await either.text();
    // A GET still answers YAML to it.
    const get = await fetch(`${cc().url}/api/v1/namespaces/default`, { headers: { ...auth, accept: 'application/yaml' } });
    expect([get.status, get.headers.get('content-type')?.startsWith('application/yaml')]).toEqual([200, true]);
  });

  it('answers a write to a discovery document with a 405 naming the path', async () => {
    for (const path of ['/apis/hypershift.openshift.io/v1beta1', '/api/v1', '/apis', '/api']) {
      const r = await request(cc(), 'DELETE', `${path}?dryRun=All`);
      expect(r.code, path).toBe(405);
      expect([r.body.kind, r.body.reason, r.body.message]).toEqual(['Status', 'MethodNotAllowed', `DELETE is not supported on "${path}"`]);
    }
    expect((await request(cc(), 'POST', '/apis', {})).body.message).toBe('POST is not supported on "/apis"');
  });

  it("refuses to delete default, kube-system, kube-public and the control center's own namespaces (403), even as a dry run", async () => {
    for (const name of ['default', 'kube-system', 'kube-public', 'hcc-system']) {
      const r = await request(cc(), 'DELETE', `/api/v1/namespaces/${name}?dryRun=All`);
      expect(r.code).toBe(403);
      expect(r.body.message).toBe(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
    for (const name of ['default', 'hcc-system']) {
      expect((await request(cc(), 'DELETE', `/api/v1/namespaces/${name}`)).code).toBe(403);
      const got = await request(cc(), 'GET', `/api/v1/namespaces/${name}`);
      expect(got.code).toBe(200);
      expect(got.body.metadata.deletionTimestamp).toBeUndefined();
    }
    // A namespace of the same kind that is not the server's own still goes.
    await ns('hcc-system-2');
    expect((await request(cc(), 'DELETE', '/api/v1/namespaces/hcc-system-2')).code).toBe(200);
  });

  it("allows a Namespace's status.phase to be only Active while it lives and Terminating once it is deleted", async () => {
    await ns('phase');
    for (const phase of ['Terminating', 'Bogus']) {
      const r = await request(cc(), 'PATCH', '/api/v1/namespaces/phase/status', { status: { phase } }, { contentType: 'application/merge-patch+json' });
      expect(r.code).toBe(422);
      expect(r.body.details.causes).toEqual([expect.objectContaining({ field: 'status.Phase', message: `Invalid value: "${phase}": may only be 'Active' if \`deletionTimestamp\` is empty` })]);
    }
    // Still Active: creates in it work.
    expect((await request(cc(), 'GET', '/api/v1/namespaces/phase')).body.status.phase).toBe('Active');
    expect((await request(cc(), 'POST', '/api/v1/namespaces/phase/configmaps', cm('ok'))).code).toBe(201);
    // An empty phase defaults to Active.
    const empty = await request(cc(), 'PATCH', '/api/v1/namespaces/phase/status', { status: { phase: '' } }, { contentType: 'application/merge-patch+json' });
    expect(empty.code).toBe(200);
    expect(empty.body.status.phase).toBe('Active');
  });

  it('answers a create in a Terminating namespace with the NamespaceTerminating cause', async () => {
    await ns('ending');
    // A finalizer of its own keeps the namespace Terminating.
    const fin = await request(cc(), 'PUT', '/api/v1/namespaces/ending/finalize', { metadata: { name: 'ending' }, spec: { finalizers: ['kubernetes', 'example.com/hold'] } });
    expect(fin.code, JSON.stringify(fin.body)).toBe(200);
    expect((await request(cc(), 'DELETE', '/api/v1/namespaces/ending')).code).toBe(200);
    const r = await request(cc(), 'POST', '/api/v1/namespaces/ending/configmaps', cm('late'));
    expect(r.code).toBe(403);
    expect(r.body.details.causes).toEqual([{ reason: 'NamespaceTerminating', message: 'namespace ending is being terminated', field: 'metadata.namespace' }]);
    // Terminating is the only phase it may have now.
    const back = await request(cc(), 'PATCH', '/api/v1/namespaces/ending/status', { status: { phase: 'Active' } }, { contentType: 'application/merge-patch+json' });
    expect(back.code).toBe(422);
    expect(back.body.message).toContain("may only be 'Terminating' if `deletionTimestamp` is not empty");
    // Its name is still taken, and the AlreadyExists says why (registry Store.Create).
    const again = await request(cc(), 'POST', '/api/v1/namespaces', { metadata: { name: 'ending' } });
    expect([again.code, again.body.reason, again.body.message]).toEqual([409, 'AlreadyExists', 'object is being deleted: namespaces "ending" already exists']);
  });

  it('answers a create over an object being deleted with AlreadyExists "object is being deleted: ...", dry run too', async () => {
    await ns('held');
    const held = { ...cm('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    expect((await request(cc(), 'POST', '/api/v1/namespaces/held/configmaps', held)).code).toBe(201);
    const live = await request(cc(), 'POST', '/api/v1/namespaces/held/configmaps', cm('held'));
    expect([live.code, live.body.message]).toEqual([409, 'configmaps "held" already exists']);
    expect((await request(cc(), 'DELETE', '/api/v1/namespaces/held/configmaps/held')).code).toBe(200);
    for (const q of ['', '?dryRun=All']) {
      const r = await request(cc(), 'POST', `/api/v1/namespaces/held/configmaps${q}`, cm('held'));
      expect([r.code, r.body.reason, r.body.message], q).toEqual([409, 'AlreadyExists', 'object is being deleted: configmaps "held" already exists']);
    }
  });

  it('serves a GET at a resourceVersion once the store has reached it: 400 for a non-number, 504 for the future', async () => {
    await ns('rv');
    const created = await request(cc(), 'POST', '/api/v1/namespaces/rv/configmaps', cm('one'));
    const rv = created.body.metadata.resourceVersion as string;
    for (const q of ['', '0', rv, '1']) expect((await request(cc(), 'GET', `/api/v1/namespaces/rv/configmaps/one?resourceVersion=${q}`)).code).toBe(200);
    const bad = await request(cc(), 'GET', '/api/v1/namespaces/rv/configmaps/one?resourceVersion=abc');
    expect(bad.code).toBe(400);
    expect(bad.body.message).toBe('invalid resource version: strconv.ParseUint: parsing "abc": invalid syntax');
    const future = await request(cc(), 'GET', '/api/v1/namespaces/rv/configmaps/one?resourceVersion=99999999');
    expect(future.code).toBe(504);
    expect(future.body.details.causes[0].reason).toBe('ResourceVersionTooLarge');
  });

  it('sends an object leaving a watch\'s selector as DELETED in its last selected state, at the new resourceVersion', async () => {
    await ns('leave');
    const created = await request(cc(), 'POST', '/api/v1/namespaces/leave/configmaps', cm('moving', { app: 'x' }));
    const ac = new AbortController();
    const res = await fetch(`${cc().url}/api/v1/namespaces/leave/configmaps?watch=1&labelSelector=app%3Dx&resourceVersion=${created.body.metadata.resourceVersion}`, {
      headers: { authorization: `Bearer ${cc().adminToken}` },
      signal: ac.signal,
    });
    const relabel = await request(cc(), 'PATCH', '/api/v1/namespaces/leave/configmaps/moving', { metadata: { labels: { app: 'y' } } }, { contentType: 'application/merge-patch+json' });
    expect(relabel.code).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    ac.abort();
    const ev = JSON.parse(text.split('\n')[0]!) as { type: string; object: { metadata: { labels: Record<string, string>; resourceVersion: string } } };
    expect(ev.type).toBe('DELETED');
    expect(ev.object.metadata.labels).toEqual({ app: 'x' });
    expect(ev.object.metadata.resourceVersion).toBe(relabel.body.metadata.resourceVersion);
  });

  it('answers Accept: application/yaml with YAML (objects and lists), and a protobuf-only Accept with a 406 naming what it serves', async () => {
    await ns('yml');
    expect((await request(cc(), 'POST', '/api/v1/namespaces/yml/configmaps', { ...cm('y1'), data: { flag: 'yes', n: '1' } })).code).toBe(201);
    const get = async (url: string, accept: string) => {
      const res = await fetch(cc().url + url, { headers: { authorization: `Bearer ${cc().adminToken}`, accept } });
      return { code: res.status, type: res.headers.get('content-type'), text: await res.text() };
    };
    const one = await get('/api/v1/namespaces/yml/configmaps/y1', 'application/yaml');
    expect(one.code).toBe(200);
    expect(one.type).toBe('application/yaml');
    const doc = YAML.parse(one.text, { version: '1.1' }) as { kind: string; data: Record<string, unknown> };
    expect(doc.kind).toBe('ConfigMap');
    // Strings stay strings for a YAML 1.1 reader (kubectl's go-yaml).
    expect(doc.data).toEqual({ flag: 'yes', n: '1' });
    const list = await get('/api/v1/namespaces/yml/configmaps', 'application/yaml, application/json');
    expect(list.type).toBe('application/yaml');
    expect((YAML.parse(list.text) as { items: unknown[] }).items).toHaveLength(1);
    // JSON first wins; a Table is JSON.
    expect((await get('/api/v1/namespaces/yml/configmaps', 'application/json, application/yaml')).type).toMatch(/^application\/json/);
    expect((await get('/api/v1/namespaces/yml/configmaps', 'application/json;as=Table;v=v1;g=meta.k8s.io, application/yaml')).type).toMatch(/^application\/json/);
    const pb = await get('/api/v1/namespaces/yml/configmaps', 'application/vnd.kubernetes.protobuf');
    expect(pb.code).toBe(406);
    expect(JSON.parse(pb.text).message).toBe('only the following media types are accepted: application/json, application/yaml');
  });

  it('reads a YAML body as kube-apiserver does (go-yaml v2, YAML 1.1): yes/on are booleans, 0777 and 0o17 octal; timestamps and 1:20 stay strings', async () => {
    await ns('yml11');
    const post = async (url: string, body: string) => {
      const res = await fetch(cc().url + url, { method: 'POST', headers: { authorization: `Bearer ${cc().adminToken}`, 'content-type': 'application/yaml' }, body });
      return { code: res.status, body: (await res.json()) as any };
    };
    const CMS = '/api/v1/namespaces/yml11/configmaps';
    // An unquoted yes is a boolean, which a ConfigMap's string data cannot hold: kube-apiserver's 400.
    const flag = await post(CMS, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flag\ndata:\n  enabled: yes\n');
    expect(flag.code).toBe(400);
    expect(flag.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ConfigMap.data of type string');
    // Quoted, and what is not a 1.1 boolean or number, stays a string; an `on:` key is "true".
    const ok = await post(CMS, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n  labels:\n    on: x\ndata:\n  a: "yes"\n  b: "0777"\n  c: 2001-12-14\n  d: 1:20\n  e: !!binary aGVsbG8=\n');
    expect(ok.code).toBe(201);
    expect(ok.body.metadata.labels).toEqual({ true: 'x' });
    expect(ok.body.data).toEqual({ a: 'yes', b: '0777', c: '2001-12-14', d: '1:20', e: 'hello' });
    const NPS = '/apis/hypershift.openshift.io/v1beta1/namespaces/yml11/nodepools';
    const np = (name: string, replicas: string, autoRepair: string) =>
      `apiVersion: hypershift.openshift.io/v1beta1\nkind: NodePool\nmetadata:\n  name: ${name}\nspec:\n  clusterName: c\n  replicas: ${replicas}\n  management:\n    upgradeType: Replace\n    autoRepair: ${autoRepair}\n  platform:\n    type: None\n  release:\n    image: quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64\n`;
    const octal = await post(NPS, np('octal', '010', 'on'));
    expect(octal.code).toBe(201);
    expect([octal.body.spec.replicas, octal.body.spec.management.autoRepair]).toEqual([8, true]);
    const goOctal = await post(NPS, np('go-octal', '0o17', 'No'));
    expect(goOctal.code).toBe(201);
    expect([goOctal.body.spec.replicas, goOctal.body.spec.management.autoRepair]).toEqual([15, false]);
    // Explicit tags as go-yaml v2 reads them: !!float takes an integer, a value that is not of the tag's type is a 400.
    const floatTag = await post(NPS, np('float-tag', '!!float 2', 'true'));
    expect([floatTag.code, floatTag.body.spec?.replicas]).toEqual([201, 2]);
    const badTag = await post(NPS, np('bad-tag', '!!int two', 'true'));
    expect([badTag.code, badTag.body.message]).toEqual([400, 'error decoding YAML: cannot decode !!str `two` as a !!int']);
    // A YAML answer PUT back as YAML changes nothing: strings such a reader takes for something else are quoted.
    const tricky = { a: '0o17', b: '-0O17', c: '0X1F', d: '0B101', e: 'yes', f: 'n', g: '0777', h: '1_000', i: '1:20', j: '2001-12-14' };
    expect((await request(cc(), 'POST', `${CMS}`, { ...cm('rt'), data: tricky })).code).toBe(201);
    const yaml = await (await fetch(`${cc().url}${CMS}/rt`, { headers: { authorization: `Bearer ${cc().adminToken}`, accept: 'application/yaml' } })).text();
    const put = await fetch(`${cc().url}${CMS}/rt`, { method: 'PUT', headers: { authorization: `Bearer ${cc().adminToken}`, 'content-type': 'application/yaml' }, body: yaml });
    const back = (await put.json()) as { data: Record<string, string> };
    expect([put.status, back.data]).toEqual([200, tricky]);
  });

  it('takes request heads up to 1 MiB, as Go servers do, and answers a larger one with a Status', async () => {
    // A label selector of ~40 KB (Node's default limit is 16 KiB).
    const values = Array.from({ length: 5000 }, (_, i) => `v${i}`).join(',');
    const long = await request(cc(), 'GET', `/api/v1/namespaces/default/configmaps?labelSelector=${encodeURIComponent(`a in (${values})`)}`);
    expect(long.code).toBe(200);
    expect(long.body.kind).toBe('ConfigMapList');
    const res = await fetch(`${cc().url}/api/v1/namespaces`, { headers: { authorization: `Bearer ${cc().adminToken}`, 'x-big': 'a'.repeat(1100 * 1024) } });
    expect(res.status).toBe(431);
    const body = (await res.json()) as { kind: string; code: number; message: string };
    expect(body.kind).toBe('Status');
    expect(body.code).toBe(431);
    expect(body.message).toContain('exceed 1048576 bytes');
  });

  it('cuts a generateName prefix to 58 characters, so that the generated name fits 63', async () => {
    const prefix = 'x'.repeat(62);
    const r = await request(cc(), 'POST', '/api/v1/namespaces', { metadata: { generateName: prefix } });
    expect(r.code, JSON.stringify(r.body)).toBe(201);
    const name = (r.body.metadata as { name: string }).name;
    expect(name).toHaveLength(63);
    expect(name.startsWith('x'.repeat(58))).toBe(true);
    expect((r.body.metadata as { generateName: string }).generateName).toBe(prefix);
  });

  it('generates another name when a generated one is taken, up to 8 names, then answers 409 (RetryGenerateName)', async () => {
    await ns('gen');
    expect((await request(cc(), 'POST', '/api/v1/namespaces/gen/configmaps', cm('g-bbbbb'))).code).toBe(201);
    // Math.random() = 0 picks 'b' for every character: the first name generated is the taken g-bbbbb.
    const random = vi.spyOn(Math, 'random');
    try {
      random.mockImplementation(() => (random.mock.calls.length <= 5 ? 0 : 0.5));
      const retried = await request(cc(), 'POST', '/api/v1/namespaces/gen/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'g-' } });
      expect(retried.code, JSON.stringify(retried.body)).toBe(201);
      expect((retried.body.metadata as { name: string }).name).toMatch(/^g-[b-z2-9]{5}$/);
      expect((retried.body.metadata as { name: string }).name).not.toBe('g-bbbbb');
      // Every name taken: the eighth attempt's 409 stands, naming the name it tried.
      random.mockReset();
      random.mockReturnValue(0);
      const exhausted = await request(cc(), 'POST', '/api/v1/namespaces/gen/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'g-' } });
      expect(exhausted.code).toBe(409);
      expect(exhausted.body).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "g-bbbbb" already exists' });
      expect(random.mock.calls.length).toBe(8 * 5);
    } finally {
      random.mockRestore();
    }
    expect(((await request(cc(), 'GET', '/api/v1/namespaces/gen/configmaps')).body.items as unknown[]).length).toBe(2);
  });

  it("names the request's UID as the precondition and the stored one as the object's in an update's UID conflict", async () => {
    await ns('uidp');
    const created = await request(cc(), 'POST', '/api/v1/namespaces/uidp/configmaps', cm('u'));
    const meta = created.body.metadata as { uid: string; resourceVersion: string };
    const r = await request(cc(), 'PUT', '/api/v1/namespaces/uidp/configmaps/u', { ...cm('u'), metadata: { name: 'u', uid: 'not-the-uid', resourceVersion: meta.resourceVersion } });
    expect(r.code).toBe(409);
    expect(r.body.message).toContain(`Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${meta.uid}`);
  });

  it('answers a metadata-only Accept of the wrong form (object vs list) with 406, as transformResponseObject does', async () => {
    await ns('pom');
    expect((await request(cc(), 'POST', '/api/v1/namespaces/pom/configmaps', cm('m'))).code).toBe(201);
    const get = async (url: string, as: string) => {
      const res = await fetch(`${cc().url}${url}`, { headers: { authorization: `Bearer ${cc().adminToken}`, accept: `application/json;as=${as};g=meta.k8s.io;v=v1` } });
      return { code: res.status, body: (await res.json()) as { kind: string; message?: string } };
    };
    expect(await get('/api/v1/namespaces/pom/configmaps/m', 'PartialObjectMetadata')).toMatchObject({ code: 200, body: { kind: 'PartialObjectMetadata' } });
    expect(await get('/api/v1/namespaces/pom/configmaps', 'PartialObjectMetadataList')).toMatchObject({ code: 200, body: { kind: 'PartialObjectMetadataList' } });
    expect(await get('/api/v1/namespaces/pom/configmaps/m', 'PartialObjectMetadataList')).toMatchObject({
      code: 406,
      body: { kind: 'Status', message: 'you requested PartialObjectMetadataList, but the requested object is not a list' },
    });
    expect(await get('/api/v1/namespaces/pom/configmaps', 'PartialObjectMetadata')).toMatchObject({ code: 406, body: { kind: 'Status', message: 'you requested PartialObjectMetadata, but the requested object is a list' } });
  });

  it('refuses a PUT body, or a patched object, without a name (400) and keeps the object: a strategic $patch: replace no longer wipes it', async () => {
    await ns('noname');
    const created = await request(cc(), 'POST', '/api/v1/namespaces/noname/configmaps', { ...cm('rp', { keep: 'me' }), data: { a: 'b' } });
    expect(created.code).toBe(201);
    const smp = 'application/strategic-merge-patch+json';
    for (const patch of [{ $patch: 'replace', data: { x: 'y' } }, { $patch: 'delete' }]) {
      const r = await request(cc(), 'PATCH', '/api/v1/namespaces/noname/configmaps/rp', patch, { contentType: smp });
      expect(r.code, JSON.stringify(patch)).toBe(400);
      expect(r.body.message).toBe('the name of the object (rp based on URL) was undeterminable: name must be provided');
    }
    const json = await request(cc(), 'PATCH', '/api/v1/namespaces/noname/configmaps/rp', [{ op: 'remove', path: '/metadata/name' }], { contentType: 'application/json-patch+json' });
    expect(json.code).toBe(400);
    const put = await request(cc(), 'PUT', '/api/v1/namespaces/noname/configmaps/rp', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: created.body.metadata.resourceVersion }, data: {} });
    expect(put.code).toBe(400);
    expect(put.body.message).toBe('the name of the object (rp based on URL) was undeterminable: name must be provided');
    const after = await request(cc(), 'GET', '/api/v1/namespaces/noname/configmaps/rp');
    expect(after.body.data).toEqual({ a: 'b' });
    expect(after.body.metadata.labels).toEqual({ keep: 'me' });
  });

  it('answers a create into a missing namespace with 404 before validating the object, as NamespaceLifecycle admission runs first', async () => {
    const r = await request(cc(), 'POST', '/api/v1/namespaces/nope-not-here/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Y_bad' } });
    expect(r.code).toBe(404);
    expect(r.body.message).toBe('namespaces "nope-not-here" not found');
    const np = await request(cc(), 'POST', '/apis/hypershift.openshift.io/v1beta1/namespaces/nope-not-here/nodepools', { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'np' }, spec: {} });
    expect(np.code).toBe(404);
  });

  it('reads DELETE and PATCH options as kube-apiserver decodes them: *bool parameters, an int64 gracePeriodSeconds', async () => {
    await ns('delopts');
    for (const n of ['a', 'b']) expect((await request(cc(), 'POST', '/api/v1/namespaces/delopts/configmaps', cm(n))).code).toBe(201);
    const bad = await request(cc(), 'DELETE', '/api/v1/namespaces/delopts/configmaps/a?gracePeriodSeconds=abc');
    expect(bad.code).toBe(400);
    expect(bad.body.message).toContain('strconv.ParseInt: parsing "abc": invalid syntax');
    expect((await request(cc(), 'GET', '/api/v1/namespaces/delopts/configmaps/a')).code).toBe(200);
    expect((await request(cc(), 'DELETE', '/api/v1/namespaces/delopts/configmaps/a?gracePeriodSeconds=0')).code).toBe(200);
    // Anything but 0/false is true for a *bool, as Convert_Slice_string_To_Pointer_bool reads it.
    expect((await request(cc(), 'DELETE', '/api/v1/namespaces/delopts/configmaps/b?orphanDependents=maybe')).code).toBe(200);
  });

  it('refuses a bad dryRun or fieldValidation with 422 naming the options kind; other verbs ignore fieldValidation', async () => {
    await ns('opts422');
    const create = await request(cc(), 'POST', '/api/v1/namespaces/opts422/configmaps?dryRun=foo', cm('c'));
    expect(create.code).toBe(422);
    expect(create.body.message).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "foo": supported values: "All"');
    expect((await request(cc(), 'POST', '/api/v1/namespaces/opts422/configmaps', cm('c'))).code).toBe(201);
    const patch = await request(cc(), 'PATCH', '/api/v1/namespaces/opts422/configmaps/c?fieldValidation=Loose', { data: { a: 'b' } }, { contentType: 'application/merge-patch+json' });
    expect(patch.code).toBe(422);
    expect(patch.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "Ignore", "Strict", "Warn"');
    const del = await request(cc(), 'DELETE', '/api/v1/namespaces/opts422/configmaps/c?dryRun=Some');
    expect(del.code).toBe(422);
    expect(del.body.message).toContain('DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Some"');
    expect((await request(cc(), 'GET', '/api/v1/namespaces/opts422/configmaps/c?fieldValidation=Loose')).code).toBe(200);
  });

  it('has no metadata.namespace field selector on Namespaces and cluster-scoped custom resources (400), as kube-apiserver', async () => {
    for (const url of ['/api/v1/namespaces', '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters']) {
      const r = await request(cc(), 'GET', `${url}?fieldSelector=metadata.namespace%3Dx`);
      expect(r.code, url).toBe(400);
      expect(r.body.message).toBe('field label not supported: metadata.namespace');
    }
    expect((await request(cc(), 'GET', '/api/v1/configmaps?fieldSelector=metadata.namespace%3Dx')).code).toBe(200);
    expect((await request(cc(), 'GET', '/apis/hypershift.openshift.io/v1beta1/hostedclusters?fieldSelector=metadata.namespace%3Dx')).code).toBe(200);
  });

  it('answers a patch that changes metadata.uid with 422 field is immutable (a PUT keeps the 409 precondition)', async () => {
    await ns('uidpatch');
    expect((await request(cc(), 'POST', '/api/v1/namespaces/uidpatch/configmaps', cm('u'))).code).toBe(201);
    const r = await request(cc(), 'PATCH', '/api/v1/namespaces/uidpatch/configmaps/u', { metadata: { uid: 'other' } }, { contentType: 'application/merge-patch+json' });
    expect(r.code).toBe(422);
    expect(r.body.message).toContain('metadata.uid: Invalid value: "other": field is immutable');
  });

  it('never stores a client-sent metadata.selfLink (an export from before 1.20 carries one), on PUT, patch and custom resources', async () => {
    await ns('selflink');
    expect((await request(cc(), 'POST', '/api/v1/namespaces/selflink/configmaps', { ...cm('s'), metadata: { name: 's', selfLink: '/api/foo' } })).code).toBe(201);
    const got = (await request(cc(), 'GET', '/api/v1/namespaces/selflink/configmaps/s')).body;
    expect(got.metadata.selfLink).toBeUndefined();
    const put = await request(cc(), 'PUT', '/api/v1/namespaces/selflink/configmaps/s', { ...got, metadata: { ...got.metadata, selfLink: '/api/foo' } });
    expect(put.code).toBe(200);
    expect(put.body.metadata.selfLink).toBeUndefined();
    const patch = await request(cc(), 'PATCH', '/api/v1/namespaces/selflink/configmaps/s', { metadata: { selfLink: '/api/bar' } }, { contentType: 'application/merge-patch+json' });
    expect(patch.code).toBe(200);
    expect(patch.body.metadata.selfLink).toBeUndefined();
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: {} };
    expect((await request(cc(), 'POST', '/apis/coordination.k8s.io/v1/namespaces/selflink/leases', lease)).code).toBe(201);
    const l = (await request(cc(), 'GET', '/apis/coordination.k8s.io/v1/namespaces/selflink/leases/l')).body;
    const lput = await request(cc(), 'PUT', '/apis/coordination.k8s.io/v1/namespaces/selflink/leases/l', { ...l, metadata: { ...l.metadata, selfLink: '/x' } });
    expect(lput.body.metadata.selfLink).toBeUndefined();
    expect((await request(cc(), 'GET', '/api/v1/namespaces/selflink/configmaps/s')).body.metadata.selfLink).toBeUndefined();
  });

  it('refuses an Event eventTime that is not RFC3339Micro (six fractional digits), so kubectl events can read every Event back', async () => {
    await ns('micro');
    const ev = (eventTime: string) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: `e${eventTime.length}` }, involvedObject: { kind: 'ConfigMap', name: 'c1', namespace: 'micro' }, reason: 'R', message: 'm', type: 'Normal', eventTime, reportingComponent: 'x', reportingInstance: 'y', action: 'A' });
    const bad = await request(cc(), 'POST', '/api/v1/namespaces/micro/events', ev('2024-01-01T00:00:00.5Z'));
    expect(bad.code).toBe(400);
    expect(bad.body.message).toContain('parsing time "2024-01-01T00:00:00.5Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".5Z" as ".000000"');
    const ok = await request(cc(), 'POST', '/api/v1/namespaces/micro/events', ev('2024-01-01T01:00:00.500000+01:00'));
    expect(ok.code).toBe(201);
    expect(ok.body.eventTime).toBe('2024-01-01T00:00:00.500000Z');
  });

  it("validates a ManagementCluster's taints as kube-apiserver validates a Node's: qualified-name keys, label values, one per key and effect", async () => {
    const MCS = '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters';
    const mc = (name: string, taints: unknown[]) => ({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name }, spec: { capacity: 1, taints } });
    const dup = await request(cc(), 'POST', MCS, mc('taint-dup', [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', value: 'other', effect: 'NoSchedule' }]));
    expect(dup.code).toBe(422);
    expect(dup.body.message).toContain('taints must be unique by key and effect pair');
    const bad = await request(cc(), 'POST', MCS, mc('taint-bad', [{ key: 'bad key!', effect: 'NoSchedule' }]));
    expect(bad.code).toBe(422);
    expect(bad.body.message).toContain('spec.taints[0].key: Invalid value: "bad key!"');
    const ok = await request(cc(), 'POST', MCS, mc('taint-ok', [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'PreferNoSchedule' }, { key: 'example.com/zone', value: 'eu-1', effect: 'NoSchedule' }]));
    expect(ok.code).toBe(201);
  });
});
