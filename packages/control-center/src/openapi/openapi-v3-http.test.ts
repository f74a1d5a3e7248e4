/**
 * /openapi/v3/<group version> caching, as kube-openapi's handler3 answers it: the document's hash
 * is its ETag; `?hash=` of another version is a 301 to the current URL; only the hashed URL may be
 * cached for good; If-None-Match of the current ETag is a 304.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';

describe('/openapi/v3 group version documents', () => {
  let cc: RunningControlCenter;
  let headers: Record<string, string>;
  beforeAll(async () => {
    cc = await startTestControlCenter();
    headers = { authorization: `Bearer ${cc.adminToken}` };
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('caches by hash, redirects a stale hash and answers 304 to the current ETag', async () => {
    const root = (await (await fetch(`${cc.url}/openapi/v3`, { headers })).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const url = root.paths['api/v1']!.serverRelativeURL;
    const hash = new URL(url, cc.url).searchParams.get('hash')!;
    expect(hash).toMatch(/^[0-9A-F]+$/i);

    const hashed = await fetch(cc.url + url, { headers });
    expect(hashed.status).toBe(200);
    expect(hashed.headers.get('etag')).toBe(`"${hash}"`);
    expect(hashed.headers.get('cache-control')).toBe('public, immutable');
    expect(hashed.headers.get('vary')).toBe('Accept');
    expect(Date.parse(hashed.headers.get('expires')!)).toBeGreaterThan(Date.now() + 300 * 86_400_000);

    const plain = await fetch(`${cc.url}/openapi/v3/api/v1`, { headers });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('etag')).toBe(`"${hash}"`);
    expect(plain.headers.get('cache-control')).toBeNull();

    const stale = await fetch(`${cc.url}/openapi/v3/api/v1?hash=BOGUS`, { headers, redirect: 'manual' });
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(url);

    const again = await fetch(cc.url + url, { headers: { ...headers, 'if-none-match': `"${hash}"` } });
    expect(again.status).toBe(304);
    const changed = await fetch(cc.url + url, { headers: { ...headers, 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
  });

  it('lists api, apis, each built-in apis/<group> and version beside the group versions, sorted, as kube-apiserver does', async () => {
    const root = (await (await fetch(`${cc.url}/openapi/v3`, { headers })).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const keys = Object.keys(root.paths);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toEqual(expect.arrayContaining(['api', 'api/v1', 'apis', 'apis/apiextensions.k8s.io', 'apis/apiextensions.k8s.io/v1', 'apis/authorization.k8s.io', 'version']));
    const docs = {
      api: ['/api/', 'getCoreAPIVersions', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions'],
      apis: ['/apis/', 'getAPIVersions', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList'],
      'apis/apiextensions.k8s.io': ['/apis/apiextensions.k8s.io/', 'getApiextensionsAPIGroup', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup'],
      version: ['/version/', 'getCodeVersion', 'io.k8s.apimachinery.pkg.version.Info'],
    };
    for (const [key, [path, operationId, schema]] of Object.entries(docs)) {
      const r = await fetch(cc.url + root.paths[key]!.serverRelativeURL, { headers });
      expect(r.status, key).toBe(200);
      const doc = (await r.json()) as { paths: Record<string, { get: { operationId: string; responses: { 200: { content: Record<string, { schema: { $ref: string } }> } } } }>; components: { schemas: Record<string, unknown> } };
      expect(Object.keys(doc.paths), key).toEqual([path]);
      expect(doc.paths[path]!.get.operationId).toBe(operationId);
      expect(doc.paths[path]!.get.responses[200].content['application/json']!.schema.$ref).toBe(`#/components/schemas/${schema}`);
      // Every schema referred to is in the document.
      for (const m of JSON.stringify(doc).matchAll(/#\/components\/schemas\/([\w.-]+)/g)) expect(doc.components.schemas[m[1]!], `${key} ${m[1]}`).toBeDefined();
    }
  });
});

describe('OpenAPI path items', () => {
  let cc: RunningControlCenter;
  let headers: Record<string, string>;
  beforeAll(async () => {
    const { allCRDs } = await import('@hcc/crds');
    cc = await startTestControlCenter({ crds: allCRDs });
    headers = { authorization: `Bearer ${cc.adminToken}` };
  });
  afterAll(async () => {
    await cc?.close();
  });

  type Param = { name: string; in: string; required?: boolean };
  type Doc = { paths: Record<string, { parameters?: Param[] } & Record<string, { operationId?: string; parameters?: Param[] }>>; components?: { schemas: Record<string, unknown> }; definitions?: Record<string, unknown> };

  it('declare every templated path parameter, list the query parameters, and include the cluster-wide list and the scale subresource (v3 and v2)', async () => {
    const v3 = (await (await fetch(`${cc.url}/openapi/v3/apis/hypershift.openshift.io/v1beta1`, { headers })).json()) as Doc;
    const v2 = (await (await fetch(`${cc.url}/openapi/v2`, { headers })).json()) as Doc;
    for (const [which, doc] of [['v3', v3], ['v2', v2]] as const) {
      const hcPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/apis/hypershift.openshift.io/v1beta1/'));
      expect(hcPaths.length, which).toBeGreaterThan(0);
      for (const path of Object.keys(doc.paths)) {
        const item = doc.paths[path]!;
        for (const [method, op] of Object.entries(item)) {
          if (method === 'parameters') continue;
          const declared = [...(item.parameters ?? []), ...((op as { parameters?: Param[] }).parameters ?? [])].filter((p) => p.in === 'path');
          const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
          expect(declared.map((p) => p.name).sort(), `${which} ${method} ${path}`).toEqual(templated.sort());
          expect(declared.every((p) => p.required), `${which} ${method} ${path}`).toBe(true);
        }
      }
      expect(doc.paths['/apis/hypershift.openshift.io/v1beta1/hostedclusters']?.get?.operationId, which).toBe('listHypershiftOpenshiftIoV1beta1HostedClusterForAllNamespaces');
      const list = doc.paths['/apis/hypershift.openshift.io/v1beta1/namespaces/{namespace}/hostedclusters']!.get!;
      expect(list.parameters!.map((p) => p.name), which).toEqual(expect.arrayContaining(['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch']));
      const scale = doc.paths['/apis/hypershift.openshift.io/v1beta1/namespaces/{namespace}/nodepools/{name}/scale'];
      expect(scale?.get?.operationId, which).toBe('readHypershiftOpenshiftIoV1beta1NamespacedNodePoolScale');
    }
    expect(v3.components!.schemas['io.k8s.api.autoscaling.v1.Scale']).toBeDefined();
    expect(v2.definitions!['io.k8s.api.autoscaling.v1.Scale']).toBeDefined();
  });

  it('serves /openapi/v2 with an ETag per form and answers 304 to it', async () => {
    for (const accept of ['application/json', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf']) {
      const first = await fetch(`${cc.url}/openapi/v2`, { headers: { ...headers, accept } });
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag, accept).toMatch(/^"[0-9A-F]{128}"$/);
      await first.arrayBuffer();
      const again = await fetch(`${cc.url}/openapi/v2`, { headers: { ...headers, accept, 'if-none-match': etag! } });
      expect(again.status, accept).toBe(304);
    }
  });

  /** Creates a CRD of one version, `v1`, that keeps any field. */
  const createCRD = (group: string, scope: 'Namespaced' | 'Cluster', names: { plural: string; singular: string; kind: string; listKind: string }) =>
    fetch(`${cc.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${names.plural}.${group}` },
        spec: { group, scope, names, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
      }),
    });

  it('give every operation an ID unique across groups (as kube-apiserver names them), a list its kind\'s List and a delete of a collection a Status (v3 and v2)', async () => {
    // A second group serving a kind named ConfigMap, as any cluster may have.
    const created = await createCRD('example.com', 'Namespaced', { plural: 'configmaps', singular: 'configmap', kind: 'ConfigMap', listKind: 'ConfigMapList' });
    expect(created.status).toBe(201);
    let v2: Doc = { paths: {} };
    for (let i = 0; i < 50 && !v2.paths['/apis/example.com/v1/namespaces/{namespace}/configmaps']; i++) {
      v2 = (await (await fetch(`${cc.url}/openapi/v2`, { headers })).json()) as Doc;
      await new Promise((r) => setTimeout(r, 100));
    }
    const ids = Object.values(v2.paths).flatMap((item) => Object.entries(item).filter(([m]) => m !== 'parameters').map(([, op]) => (op as { operationId?: string }).operationId!));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(['listCoreV1NamespacedConfigMap', 'listExampleComV1NamespacedConfigMap', 'deleteCoreV1CollectionNamespacedConfigMap', 'readCoreV1Namespace', 'listHypershiftOpenshiftIoV1beta1NodePoolForAllNamespaces', 'patchHypershiftOpenshiftIoV1beta1NamespacedHostedClusterStatus', 'createAuthorizationV1SelfSubjectAccessReview']));
    type Op = { responses: Record<string, { schema?: { $ref: string }; content?: Record<string, { schema: { $ref: string } }> }> };
    const v3 = (await (await fetch(`${cc.url}/openapi/v3/apis/hypershift.openshift.io/v1beta1`, { headers })).json()) as Doc;
    const collection = '/apis/hypershift.openshift.io/v1beta1/namespaces/{namespace}/hostedclusters';
    const v3Ref = (method: string) => (v3.paths[collection]![method] as unknown as Op).responses['200']!.content!['application/json']!.schema.$ref;
    const v2Ref = (method: string) => (v2.paths[collection]![method] as unknown as Op).responses['200']!.schema!.$ref;
    expect([v3Ref('get'), v3Ref('delete')]).toEqual(['#/components/schemas/io.openshift.hypershift.v1beta1.HostedClusterList', '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status']);
    expect([v2Ref('get'), v2Ref('delete')]).toEqual(['#/definitions/io.openshift.hypershift.v1beta1.HostedClusterList', '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status']);
    const list = v3.components!.schemas['io.openshift.hypershift.v1beta1.HostedClusterList'] as { properties: { items: { items: { $ref: string } } }; 'x-kubernetes-group-version-kind': unknown };
    expect(list.properties.items.items.$ref).toBe('#/components/schemas/io.openshift.hypershift.v1beta1.HostedCluster');
    expect(list['x-kubernetes-group-version-kind']).toEqual([{ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedClusterList' }]);
    // A single delete takes DeleteOptions (parameters, or an optional body) and answers what hcc
    // answers: a Status for a built-in kind, the object for a custom resource.
    type DeleteOp = { parameters: { name: string }[]; requestBody?: { required: boolean }; responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> };
    const hcDelete = v3.paths[`${collection}/{name}`]!.delete as unknown as DeleteOp;
    expect(hcDelete.parameters.map((p) => p.name)).toEqual(['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy']);
    expect(hcDelete.requestBody?.required).toBe(false);
    expect(Object.keys(hcDelete.responses)).toEqual(['200', '202']);
    expect(hcDelete.responses['200']!.content['application/json']!.schema.$ref).toBe('#/components/schemas/io.openshift.hypershift.v1beta1.HostedCluster');
    const core = (await (await fetch(`${cc.url}/openapi/v3/api/v1`, { headers })).json()) as Doc;
    const cmDelete = core.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!.delete as unknown as DeleteOp;
    expect(cmDelete.responses['200']!.content['application/json']!.schema.$ref).toBe('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status');
    const v2Body = (v2.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!.delete as unknown as { parameters: { in: string; required?: boolean }[] }).parameters.find((p) => p.in === 'body');
    expect(v2Body?.required).toBeUndefined();
    // A CRD's listKind names its List schema.
    expect((await createCRD('tools.example.org', 'Cluster', { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoCollection' })).status).toBe(201);
    let tools: Doc | undefined;
    for (let i = 0; i < 50 && !tools?.paths?.['/apis/tools.example.org/v1/gizmos']; i++) {
      const r = await fetch(`${cc.url}/openapi/v3/apis/tools.example.org/v1`, { headers });
      tools = r.ok ? ((await r.json()) as Doc) : undefined;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect((tools!.paths['/apis/tools.example.org/v1/gizmos']!.get as unknown as DeleteOp).responses['200']!.content['application/json']!.schema.$ref).toBe('#/components/schemas/org.example.tools.v1.GizmoCollection');
    expect(tools!.components!.schemas['org.example.tools.v1.GizmoCollection']).toMatchObject({ 'x-kubernetes-group-version-kind': [{ group: 'tools.example.org', version: 'v1', kind: 'GizmoCollection' }] });
    v2 = (await (await fetch(`${cc.url}/openapi/v2`, { headers })).json()) as Doc;
    // Built-in kinds under their Go packages' names, as kube-apiserver publishes them.
    for (const name of ['io.k8s.api.core.v1.ConfigMap', 'io.k8s.api.coordination.v1.Lease', 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition', 'io.k8s.api.authorization.v1.SelfSubjectAccessReview']) {
      expect(v2.definitions![name], name).toBeDefined();
    }
    // Every reference resolves, in v2 and in each v3 document.
    for (const m of JSON.stringify(v2).matchAll(/#\/definitions\/([\w.-]+)/g)) expect(v2.definitions![m[1]!], m[1]).toBeDefined();
    const root = (await (await fetch(`${cc.url}/openapi/v3`, { headers })).json()) as { paths: Record<string, unknown> };
    for (const gv of Object.keys(root.paths)) {
      const doc = (await (await fetch(`${cc.url}/openapi/v3/${gv}`, { headers })).json()) as Doc;
      for (const m of JSON.stringify(doc).matchAll(/#\/components\/schemas\/([\w.-]+)/g)) expect(doc.components?.schemas[m[1]!], `${gv} ${m[1]}`).toBeDefined();
    }
  });
});
