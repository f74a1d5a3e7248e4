/**
 * Talking to a control center from the bench: an undici Pool built from a kubeconfig (the same
 * load generator drives the bare-fastify baseline), small JSON helpers, and the objects the
 * scenarios create (HostedCluster, NodePool, Secret, ManagementCluster) shaped like
 * test/capacity-burst.test.ts and demo/manifests.
 */
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { loadKubeconfig } from '@hcc/client';
import { closedLoop } from './load.mjs';

export const HC_PATH = (ns) => `/apis/hypershift.openshift.io/v1beta1/namespaces/${ns}/hostedclusters`;
export const NP_PATH = (ns) => `/apis/hypershift.openshift.io/v1beta1/namespaces/${ns}/nodepools`;
export const SECRET_PATH = (ns) => `/api/v1/namespaces/${ns}/secrets`;
export const MC_PATH = '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters';
export const PlacementLabel = 'controlcenter.hcc.dev/management-cluster';

/** Connection details of a kubeconfig, ready for undici and raw TLS sockets. */
export function endpointOf(kubeconfig) {
  const conn = loadKubeconfig(kubeconfig);
  const url = new URL(conn.server);
  const headers = { accept: 'application/json' };
  if (conn.token) headers.authorization = `Bearer ${conn.token}`;
  return { origin: url.origin, tls: url.protocol === 'https:', host: url.hostname, port: Number(url.port), ca: conn.ca, headers };
}

/** An undici Pool of `connections` keep-alive connections to an endpoint. */
export function poolFor(ep, connections) {
  return new Pool(ep.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 120_000,
    headersTimeout: 300_000,
    bodyTimeout: 300_000,
    connect: ep.tls ? { ca: ep.ca, rejectUnauthorized: true } : undefined,
  });
}

/**
 * One JSON request; returns the parsed body.
 * @throws Error naming the method, path and the server's answer on a non-2xx status
 */
export async function call(pool, ep, method, path, body, contentType = 'application/json') {
  const headers = { ...ep.headers };
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await pool.request({ method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Creates a namespace (ignores AlreadyExists). */
export async function ensureNamespace(pool, ep, name) {
  try {
    await call(pool, ep, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (err) {
    if (!/ 409 /.test(err.message)) throw err;
  }
}

const release = 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64';

/** A minimal valid platform-None HostedCluster (as in test/capacity-burst.test.ts). */
export function hostedCluster(ns, name, { labels, annotations, pullSecret = 'pull-secret' } = {}) {
  return {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'HostedCluster',
    metadata: { name, namespace: ns, ...(labels && { labels }), ...(annotations && { annotations }) },
    spec: {
      release: { image: release },
      pullSecret: { name: pullSecret },
      dns: { baseDomain: 'example.com' },
      networking: { clusterNetwork: [{ cidr: '10.132.0.0/14' }], serviceNetwork: [{ cidr: '172.31.0.0/16' }], networkType: 'OVNKubernetes' },
      platform: { type: 'None' },
      services: ['APIServer', 'OAuthServer', 'Konnectivity', 'Ignition'].map((service) => ({ service, servicePublishingStrategy: { type: 'NodePort', nodePort: { address: '10.0.0.1' } } })),
    },
  };
}

/** A NodePool of HostedCluster `clusterName` (as in demo/manifests/40-none.yaml). */
export function nodePool(ns, name, clusterName) {
  return {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'NodePool',
    metadata: { name, namespace: ns },
    spec: { clusterName, replicas: 0, management: { autoRepair: false, upgradeType: 'InPlace' }, release: { image: release }, platform: { type: 'None' } },
  };
}

/** A pull secret (`kubernetes.io/dockerconfigjson`) of about `bytes` bytes of payload. */
export function pullSecret(ns, name, bytes = 64) {
  const auth = randomBytes(Math.max(8, Math.floor((bytes * 3) / 4))).toString('base64');
  const cfg = JSON.stringify({ auths: { 'quay.io': { auth } } });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(cfg).toString('base64') },
  };
}

/**
 * Creates set `i` in namespace `ns` as a user of hcc does: its pull secret `ps-<i>` (~2 KiB), the
 * HostedCluster `hc-<i>` referencing it, then the NodePool `np-<i>`, one POST after the other.
 * `mark(stage)` is called just before each POST ('secret', 'hostedcluster', 'nodepool') and once the
 * last one is answered ('created').
 * @throws Error naming the path and status when a POST does not answer 201
 */
export async function createSet(pool, ep, ns, i, mark = () => {}) {
  const headers = { ...ep.headers, 'content-type': 'application/json' };
  const post = async (p, body) => {
    const res = await pool.request({ method: 'POST', path: p, headers, body: JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`POST ${p}: ${res.statusCode} ${text.slice(0, 300)}`);
  };
  mark('secret');
  await post(SECRET_PATH(ns), pullSecret(ns, `ps-${i}`, 2048));
  mark('hostedcluster');
  await post(HC_PATH(ns), hostedCluster(ns, `hc-${i}`, { pullSecret: `ps-${i}` }));
  mark('nodepool');
  await post(NP_PATH(ns), nodePool(ns, `np-${i}`, `hc-${i}`));
  mark('created');
}

/** A ManagementCluster as a syncer registers it. */
export function managementCluster(name, capacity) {
  return {
    apiVersion: 'controlcenter.hcc.dev/v1alpha1',
    kind: 'ManagementCluster',
    metadata: { name },
    spec: { platforms: ['AWS', 'Azure', 'KubeVirt', 'Agent', 'None'], capacity },
  };
}

/**
 * Creates objects as fast as the server takes them (closed loop, `connections` in flight);
 * not a measurement. `objects[i]` is { path, body }; onCreated(i, storedObject) sees each answer.
 * @throws Error with the first failure when any create fails
 */
export async function populate(pool, ep, connections, objects, onCreated) {
  const headers = { ...ep.headers, 'content-type': 'application/json' };
  const r = await closedLoop({
    pool,
    connections,
    count: objects.length,
    next: (i) => ({ method: 'POST', path: objects[i].path, headers, body: JSON.stringify(objects[i].body), i }),
    onBody: onCreated ? (text, _i, _w, req) => onCreated(req.i, JSON.parse(text)) : undefined,
  });
  if (r.errors) throw new Error(`populate: ${r.errors} of ${objects.length} creates failed; first: ${r.firstError}`);
  return r;
}
