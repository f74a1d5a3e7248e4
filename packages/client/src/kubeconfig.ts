/**
 * Reads and writes kubeconfig files (the `clientcmd` v1 format kubectl uses), parsed with the
 * `yaml` package. Only what a client needs to connect is read: the server URL, a bearer token,
 * the CA and the client certificate and key. Exec and auth-provider plugins, basic auth, proxies
 * and merging several files (`KUBECONFIG=a:b`) are not supported.
 * @see https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/
 */
import { ensureDir, writeFileAtomic } from './fs.js';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { parse, stringify } from 'yaml';
import { goYAMLOptions } from './go-yaml.js';
import { ConfigError } from './api-errors.js';

/**
 * Everything needed to reach one API server as one user. Byte fields hold PEM data.
 * `namespace` is the context's default namespace, when it names one.
 */
export interface ClusterConnection {
  /** Base URL, e.g. `https://127.0.0.1:6443` (no trailing slash). */
  server: string;
  /** Bearer token (from `token` or `tokenFile`). */
  token?: string;
  /** File to re-read the bearer token from (rotated service-account tokens); takes precedence over `token`. */
  tokenFile?: string;
  /** PEM CA bundle to trust instead of the system roots. */
  ca?: Buffer;
  /** PEM client certificate (mutual TLS). */
  cert?: Buffer;
  /** PEM client private key (mutual TLS). */
  key?: Buffer;
  /** Skip server certificate verification (test clusters only). */
  insecureSkipTLSVerify?: boolean;
  /** The context's default namespace. */
  namespace?: string;
}

function entry(list: unknown, name: string, field: 'cluster' | 'user' | 'context', file: string): Record<string, unknown> {
  const found = Array.isArray(list) ? (list as Record<string, unknown>[]).find((e) => e?.name === name) : undefined;
  if (!found) throw new ConfigError(`kubeconfig ${file}: no ${field} named "${name}"`);
  const value = found[field];
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function str(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Loads the connection for one context of a kubeconfig file.
 * Inline `certificate-authority-data`, `client-certificate-data` and `client-key-data` are
 * base64; `certificate-authority`, `client-certificate`, `client-key` and `tokenFile` are file
 * paths, relative to the kubeconfig's own folder when not absolute (as kubectl resolves them).
 * @param path - kubeconfig file
 * @param context - context name; defaults to `current-context`
 * @throws Error when the file cannot be read or parsed, the context, its cluster or user is
 *   missing, the cluster has no `server`, or a referenced file cannot be read
 */
export function loadKubeconfig(path: string, context?: string): ClusterConnection {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigError(`kubeconfig ${path} does not exist (start the control center first, which writes it, or name another with --kubeconfig)`, { cause: err });
    throw new ConfigError(`kubeconfig ${path} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  return parseKubeconfig(text, path, context);
}

/**
 * Parses kubeconfig text (e.g. from a Secret) the way {@link loadKubeconfig} reads a file.
 * @param path - where the text came from: relative file references resolve against its folder,
 *   and errors name it (a Secret's `namespace/name` works too; relative references then resolve
 *   against the working directory)
 */
export function parseKubeconfig(text: string, path: string, context?: string): ClusterConnection {
  let doc: Record<string, unknown> | null;
  try {
    doc = parse(text, goYAMLOptions) as Record<string, unknown> | null;
  } catch (err) {
    // The parser's message quotes the offending line, which in a kubeconfig may be a token or a
    // key: keep its first line (what is wrong, the line and column) and not the excerpt, nor the
    // error itself as a cause (log lines print causes).
    const reason = ((err as Error).message ?? '').split('\n')[0]!.replace(/:\s*$/, '');
    throw new ConfigError(`kubeconfig ${path} is not valid YAML: ${reason}`);
  }
  if (doc === null || doc === undefined) {
    // Empty, or only comments: a placeholder nobody replaced (deploy/syncer/secret.yaml's says so).
    const comment = /^\s*#\s*(.+)$/m.exec(text)?.[1]?.trim();
    throw new ConfigError(`kubeconfig ${path} is empty${comment ? ` (it holds only the comment "${comment}")` : ''}`);
  }
  if (typeof doc !== 'object') throw new ConfigError(`kubeconfig ${path}: not a YAML mapping`);
  const contextName = context ?? (typeof doc['current-context'] === 'string' ? doc['current-context'] : '');
  if (!contextName) throw new ConfigError(`kubeconfig ${path}: no context given and no current-context set`);
  const ctx = entry(doc.contexts, contextName, 'context', path);
  const clusterName = str(ctx, 'cluster');
  if (!clusterName) throw new ConfigError(`kubeconfig ${path}: context "${contextName}" names no cluster`);
  const cluster = entry(doc.clusters, clusterName, 'cluster', path);
  const userName = str(ctx, 'user');
  const user = userName ? entry(doc.users, userName, 'user', path) : {};

  const server = str(cluster, 'server');
  if (!server) throw new ConfigError(`kubeconfig ${path}: cluster "${clusterName}" has no server`);
  const base = dirname(resolve(path));
  const fromFile = (p: string) => readFileSync(isAbsolute(p) ? p : resolve(base, p));
  const bytes = (obj: Record<string, unknown>, dataKey: string, fileKey: string): Buffer | undefined => {
    const data = str(obj, dataKey);
    if (data) return Buffer.from(data, 'base64');
    const file = str(obj, fileKey);
    return file ? fromFile(file) : undefined;
  };

  const conn: ClusterConnection = { server: server.replace(/\/+$/, '') };
  const tokenFile = str(user, 'tokenFile');
  const token = str(user, 'token') ?? (tokenFile ? fromFile(tokenFile).toString('utf8').trim() : undefined);
  if (token) conn.token = token;
  if (tokenFile) conn.tokenFile = isAbsolute(tokenFile) ? tokenFile : resolve(dirname(path), tokenFile);
  const ca = bytes(cluster, 'certificate-authority-data', 'certificate-authority');
  if (ca) conn.ca = ca;
  const cert = bytes(user, 'client-certificate-data', 'client-certificate');
  if (cert) conn.cert = cert;
  const key = bytes(user, 'client-key-data', 'client-key');
  if (key) conn.key = key;
  if (cluster['insecure-skip-tls-verify'] === true) conn.insecureSkipTLSVerify = true;
  const namespace = str(ctx, 'namespace');
  if (namespace) conn.namespace = namespace;
  return conn;
}

/**
 * What is wrong with a connection's TLS material, as client-go finds it when it builds a client:
 * a CA that holds no PEM certificate ("unable to load root certificates"), a certificate
 * that does not parse, a client certificate without its key or the other way round, or a key
 * that does not match or parse. Undefined when nothing is. Used where a kubeconfig comes from
 * a user's Secret (Push mode), so the mistake is reported there instead of as TLS failures later.
 */
export function tlsProblem(conn: ClusterConnection): string | undefined {
  if (conn.ca) {
    const blocks = conn.ca.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (!blocks.length) return 'certificate-authority data holds no PEM certificate (unable to load root certificates)';
    for (const b of blocks) {
      try {
        new X509Certificate(b);
      } catch (err) {
        return `certificate-authority data holds a certificate that does not parse: ${(err as Error).message}`;
      }
    }
  }
  if (!conn.cert !== !conn.key) return conn.cert ? 'client-certificate data without client-key data' : 'client-key data without client-certificate data';
  if (conn.cert && conn.key) {
    try {
      createSecureContext({ cert: conn.cert, key: conn.key });
    } catch (err) {
      return `client certificate and key do not load: ${(err as Error).message}`;
    }
  }
  return undefined;
}

/** What `writeKubeconfig` writes: one cluster, one user and one context, all named `contextName`. */
export interface KubeconfigSpec {
  /** API server URL. */
  server: string;
  /** Bearer token for the user, if any. */
  token?: string;
  /** Name of the cluster, user and context (and `current-context`). */
  contextName: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** PEM CA bundle, written inline as `certificate-authority-data`. */
  ca?: Buffer;
  /** Written as `insecure-skip-tls-verify: true`. */
  insecureSkipTLSVerify?: boolean;
}

/**
 * Writes a minimal kubeconfig (kubectl and `loadKubeconfig` read it back) with file mode 0600,
 * creating the parent folder if needed. The file is written to a temporary name and renamed,
 * so a reader never sees half a file.
 * @throws Error from the filesystem
 */
export function writeKubeconfig(path: string, spec: KubeconfigSpec): void {
  const cluster: Record<string, unknown> = { server: spec.server };
  if (spec.ca) cluster['certificate-authority-data'] = spec.ca.toString('base64');
  if (spec.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
  const context: Record<string, unknown> = { cluster: spec.contextName, user: spec.contextName };
  if (spec.namespace) context.namespace = spec.namespace;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: spec.contextName, cluster }],
    users: [{ name: spec.contextName, user: spec.token ? { token: spec.token } : {} }],
    contexts: [{ name: spec.contextName, context }],
    'current-context': spec.contextName,
    preferences: {},
  };
  ensureDir(dirname(resolve(path)));
  writeFileAtomic(path, stringify(doc, goYAMLOptions), 0o600);
}

/** Where Kubernetes mounts a pod's service-account credentials. */
export const ServiceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The connection of a process running in a pod, as client-go's `rest.InClusterConfig`: the API
 * server from `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT`, the service-account token
 * (re-read from its file, since bound tokens rotate) and CA from `ServiceAccountDir`.
 * @throws Error when not running in a pod (variables or files missing)
 * @see https://kubernetes.io/docs/tasks/run-application/access-api-from-pod/
 */
export function inClusterConnection(dir = ServiceAccountDir, env: NodeJS.ProcessEnv = process.env): ClusterConnection {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new ConfigError('not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
  const tokenFile = `${dir}/token`;
  const token = readFileSync(tokenFile, 'utf8').trim();
  const h = host.includes(':') ? `[${host}]` : host;
  const conn: ClusterConnection = { server: `https://${h}:${port}`, token, tokenFile, ca: readFileSync(`${dir}/ca.crt`) };
  try {
    conn.namespace = readFileSync(`${dir}/namespace`, 'utf8').trim();
  } catch {
    // no namespace file: fine
  }
  return conn;
}
