/**
 * Parsers of command-line values, for commander's `.option(flags, description, parser,
 * default)`: a bad value stops the command before it does anything, with commander's
 * `option '--port <port>' argument 'abc' is invalid. must be ...` on stderr (exit code 1).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, MaxTimerMs, MaxTimerSeconds } from '@hcc/client';

/** What a numeric flag accepts. */
export interface NumberRule {
  /** Whole numbers only. */
  integer?: boolean;
  /** Smallest value (default 0). */
  min?: number;
  /** `min` itself is refused (the value must be greater). */
  exclusiveMin?: boolean;
  /** Largest value accepted, if any. */
  max?: number;
}

/** Plain decimal notation: what Go's strconv.ParseInt / ParseFloat of a kube flag would take, without exponents or hex. */
const integerText = /^[-+]?\d+$/;
const decimalText = /^[-+]?(\d+\.?\d*|\.\d+)$/;

/**
 * A parser of a number within the rule, written in plain decimal notation (`10`, `0.5`): blank,
 * `NaN`, `Infinity`, hex (`0x10`), exponents (`1e3`), a fraction where an integer is needed, and
 * out-of-range values are refused.
 * @throws InvalidArgumentError, e.g. `must be an integer >= 1, got "x"`
 */
export function numberArg(rule: NumberRule = {}): (value: string) => number {
  const min = rule.min ?? 0;
  const what = `${rule.integer ? 'an integer' : 'a number'} ${rule.exclusiveMin ? '>' : '>='} ${min}${rule.max !== undefined ? ` and <= ${rule.max}` : ''}`;
  const text = rule.integer ? integerText : decimalText;
  return (value: string): number => {
    const n = Number(value);
    const tooSmall = rule.exclusiveMin ? n <= min : n < min;
    if (!text.test(value) || !Number.isFinite(n) || tooSmall || (rule.max !== undefined && n > rule.max)) {
      throw new InvalidArgumentError(`must be ${what}, got "${value}"`);
    }
    return n;
  };
}

/**
 * A delay in milliseconds that becomes a timer: an integer from 0 to 2^31−1 (Node fires a longer
 * setTimeout after 1 ms, which would spin the loop it paces).
 */
export const delayMsArg = numberArg({ integer: true, max: MaxTimerMs });

/**
 * A duration in seconds that becomes a timer: by default greater than 0, and at most
 * {@link MaxTimerSeconds} (Node fires a longer setTimeout after 1 ms, which would spin the loop it
 * paces: watch bookmarks, Lease renewals, health checks).
 */
export const timerSecondsArg = (rule: Omit<NumberRule, 'max'> = { min: 0, exclusiveMin: true }): ((value: string) => number) => numberArg({ ...rule, max: MaxTimerSeconds });

/**
 * A ManagementCluster capacity, a count of HostedClusters: an integer from 0 to 2^31−1
 * (`spec.capacity` is an int32 in the CRD; a larger one would be refused at every heartbeat).
 */
export const capacityArg = numberArg({ integer: true, max: 2_147_483_647 });

/**
 * A heartbeat interval in seconds: at least 0.5 (a Lease of 2 s; shorter ones only cost CPU on
 * every side), at most 3600 (an hour).
 */
export const heartbeatIntervalArg = numberArg({ min: 0.5, max: 3600 });

/**
 * A bearer token: one or more visible ASCII characters (an HTTP header value carries it; an
 * empty one would write a kubeconfig without credentials).
 * @throws InvalidArgumentError otherwise
 */
export function tokenArg(value: string): string {
  if (!/^[\x21-\x7e]+$/.test(value)) throw new InvalidArgumentError('must be one or more visible ASCII characters (no spaces)');
  return value;
}

/**
 * A server URL for a kubeconfig: `https://host[:port]` or `http://host[:port]`, with no path
 * beyond `/`, query or fragment (clients append API paths to it).
 * @throws InvalidArgumentError otherwise
 */
export function serverUrlArg(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new InvalidArgumentError(`must be a URL such as https://hcc.example.com:6443, got "${value}"`);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || !u.hostname || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username || u.password) {
    throw new InvalidArgumentError(`must be an http(s) URL of a host and port only, such as https://hcc.example.com:6443, got "${value}"`);
  }
  return value.replace(/\/$/, '');
}

/**
 * A ManagementCluster name: an RFC 1123 label (at most 63 characters), as the control center
 * requires; it becomes the placement label's value and part of a label key.
 * @throws InvalidArgumentError (commander prints it and exits 1) otherwise
 */
export function managementClusterNameArg(value: string): string {
  const errs = isDNS1123Label(value);
  if (errs.length > 0) throw new InvalidArgumentError(errs.join('; '));
  return value;
}

/**
 * The syncer's `--name`: a ManagementCluster name ({@link managementClusterNameArg}). An empty one
 * is what deploy/syncer's Deployment passes until its ConfigMap's `name` key is set, so the error
 * says where to set it (the pod's log is all its user sees).
 * @throws InvalidArgumentError (commander prints it and exits 1)
 */
export function syncerNameArg(value: string): string {
  if (value === '') {
    throw new InvalidArgumentError(
      "must not be empty: give the ManagementCluster's name (with deploy/syncer, the `name` key of its hcc-syncer ConfigMap; with Helm, managementCluster.name)",
    );
  }
  return managementClusterNameArg(value);
}

/** A TCP port: an integer from 0 (pick a free one) to 65535. */
export const portArg = numberArg({ integer: true, min: 0, max: 65535 });

const hostnameRe = /^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/;

/**
 * An address to listen on: an IPv4 or IPv6 address, or a host name (`localhost`). A dotted
 * number that is not an IPv4 address (`999.1.1.1`) is refused, not looked up as a name.
 * @throws InvalidArgumentError `must be an IP address or a host name, got "..."`
 */
export function hostArg(value: string): string {
  const numeric = /^[\d.]+$/.test(value);
  if (isIP(value) || (!numeric && hostnameRe.test(value) && value.length <= 253)) return value;
  throw new InvalidArgumentError(`must be an IP address or a host name, got "${value}"`);
}

/**
 * Labels as `k=v,k2=v2` (a ManagementCluster's): each key a qualified name and each value a
 * label value, as Kubernetes validates labels (apimachinery validation.IsQualifiedName,
 * IsValidLabelValue); empty entries and surrounding spaces are ignored.
 * @throws InvalidArgumentError naming the first bad entry and why
 */
export function labelsArg(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new InvalidArgumentError(`want key=value[,key=value...], got "${part}"`);
    const k = part.slice(0, i);
    const v = part.slice(i + 1);
    const bad = [...isQualifiedName(k).map((e) => `key "${k}": ${e}`), ...isValidLabelValue(v).map((e) => `value "${v}": ${e}`)];
    if (bad.length) throw new InvalidArgumentError(bad[0]!);
    out[k] = v;
  }
  return out;
}

/**
 * OCP minor versions, comma-separated, newest first (`4.18,4.17`), as the hypershift-sim's
 * supported-versions ConfigMap lists them.
 * @throws InvalidArgumentError when the list is empty or an entry is not major.minor
 */
export function versionListArg(value: string): string[] {
  const list = value.split(',').map((v) => v.trim()).filter(Boolean);
  if (list.length === 0 || list.some((v) => !/^\d+\.\d+$/.test(v))) {
    throw new InvalidArgumentError(`must be a comma-separated list of major.minor versions (e.g. 4.18,4.17), got "${value}"`);
  }
  return list;
}

/**
 * Extra names of a serving certificate, comma-separated: IP addresses and DNS names (a leading
 * `*.` wildcard allowed), as x509 subjectAltNames take them.
 * @throws InvalidArgumentError naming the first bad entry
 */
export function subjectAltNamesArg(value: string): string[] {
  const names = value.split(',').map((x) => x.trim()).filter(Boolean);
  for (const n of names) {
    if (isIP(n)) continue;
    const dns = n.startsWith('*.') ? n.slice(2) : n;
    if (/^[\d.]+$/.test(dns) || !hostnameRe.test(dns) || dns.length > 253) throw new InvalidArgumentError(`must be IP addresses or DNS names, comma-separated; "${n}" is neither`);
  }
  return names;
}

/**
 * A path a command writes to or reads from: any non-empty string (an empty one would silently be
 * the working directory, filling it with data, logs and kubeconfigs).
 * @throws InvalidArgumentError `must not be empty`
 */
export function pathArg(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty (give a path)');
  return value;
}

/**
 * A leader-election identity (`hcc scheduler --id`): not empty nor only blanks, as client-go's
 * NewLeaderElector refuses an empty Lock identity (`--id "$POD_NAME"` with the variable unset).
 * @throws InvalidArgumentError `must not be empty`
 */
export function identityArg(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty (one identity per replica, e.g. the pod name)');
  return value;
}

/**
 * A file that must exist and be readable now (read again later by the command).
 * @throws InvalidArgumentError `no such file` / `not a readable file`
 */
export function existingFileArg(value: string): string {
  try {
    if (!statSync(value).isFile()) throw new Error('not a file');
    accessSync(value, constants.R_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InvalidArgumentError(code === 'ENOENT' ? `no such file "${value}"` : `"${value}" is not a readable file`);
  }
  return value;
}

/**
 * Stops the command (exit code 1, commander's one-line `error: option ...` on stderr) when
 * `--host` (or another listen-address flag) cannot be listened on: a host name that does not
 * resolve. Checked before a command writes anything; returns when it resolves (or is an address).
 * @param flag - the flag as commander names it in errors (default `--host <host>`)
 * @param command - the subcommand, for the `See 'hcc <command> --help' for usage.` line commander's errors end with
 */
export async function exitOnHostProblem(host: string, flag = '--host <host>', command?: string): Promise<void> {
  const problem = await hostProblem(host, flag);
  if (!problem) return;
  // As commander's own flag errors end (showHelpAfterError in main.ts).
  process.stderr.write(`error: ${problem}\n${command ? `See 'hcc ${command} --help' for usage.\n` : ''}`);
  process.exit(1);
}

/** Why `host` cannot be listened on (see {@link exitOnHostProblem}); undefined when it resolves or is an address. */
async function hostProblem(host: string, flag: string): Promise<string | undefined> {
  if (isIP(host)) return undefined;
  try {
    await lookup(host);
    return undefined;
  } catch (e) {
    return `option '${flag}' argument '${host}' is invalid. the name does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
}
