/**
 * Parsers of numeric command-line values, for commander's `.option(flags, description, parser,
 * default)`: a bad value stops the command before it does anything, with commander's
 * `option '--port <port>' argument 'abc' is invalid. must be ...` on stderr (exit code 1).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';

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
 * Why `--host` cannot be listened on, checked before a command writes anything: a host name that
 * does not resolve. Undefined when it resolves (or is an address).
 */
export async function hostProblem(host: string): Promise<string | undefined> {
  if (isIP(host)) return undefined;
  try {
    await lookup(host);
    return undefined;
  } catch (e) {
    return `option '--host <host>' argument '${host}' is invalid. the name does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
}
