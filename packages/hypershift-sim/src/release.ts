/**
 * What the sim can tell about an OCP release image without pulling it: the version from the tag
 * (`quay.io/openshift-release-dev/ocp-release:4.14.0-x86_64` → `4.14.0`), the payload
 * architecture from the arch suffix, and whether the operator's supported versions allow it
 * (the checks and messages of HyperShift's `supportedversion.IsValidReleaseVersion`).
 * @see https://github.com/openshift/hypershift/blob/main/support/supportedversion/version.go
 */
import { DefaultReleaseVersion } from './names.js';

/** A parsed `major.minor.patch[-pre]` version. */
export interface ReleaseVersion {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release part without the dash (`rc.1`, `0.nightly-2024-05-01-123456`), or `''`. */
  pre: string;
}

const archSuffix = /-(x86_64|amd64|aarch64|arm64|ppc64le|s390x|multi)$/;
const semverRe = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

/** Parses `4.14.0` or `4.16.0-rc.1`; undefined when it is not such a version. */
export function parseVersion(s: string): ReleaseVersion | undefined {
  const m = semverRe.exec(s);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: m[4] ?? '' };
}

/** `4.14.0` / `4.16.0-rc.1`. */
export const formatVersion = (v: ReleaseVersion): string => `${v.major}.${v.minor}.${v.patch}${v.pre ? `-${v.pre}` : ''}`;

/**
 * The image's tag (also of a `repo:tag@sha256:...` reference pinned by tag and digest), or `''`
 * for a reference by digest alone or an image without a tag.
 */
function imageTag(ref: string): string {
  const at = ref.indexOf('@');
  const image = at < 0 ? ref : ref.slice(0, at);
  const lastSlash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > lastSlash ? image.slice(colon + 1) : '';
}

/**
 * The OCP version a release image carries in its tag, without the arch suffix:
 * `ocp-release:4.14.0-x86_64` → `4.14.0`, `ocp-release:4.16.0-rc.2-multi` → `4.16.0-rc.2`.
 * Anything else (a digest, `latest`) gives {@link DefaultReleaseVersion}.
 */
export function versionFromImage(image: string | undefined): string {
  const tag = imageTag(image ?? '').replace(archSuffix, '');
  const v = parseVersion(tag);
  return v ? formatVersion(v) : DefaultReleaseVersion;
}

/**
 * `status.payloadArch` as HyperShift reports it: `Multi`, `ARM64`, `PPC64LE`, `S390X`, else `AMD64`.
 */
export function payloadArchFromImage(image: string | undefined): string {
  const m = archSuffix.exec(imageTag(image ?? ''));
  switch (m?.[1]) {
    case 'multi':
      return 'Multi';
    case 'aarch64':
    case 'arm64':
      return 'ARM64';
    case 'ppc64le':
      return 'PPC64LE';
    case 's390x':
      return 'S390X';
    default:
      return 'AMD64';
  }
}

/** `4.18` → `{4, 18, 0}`; undefined when unparsable. */
function minorVersion(s: string): ReleaseVersion | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(s.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: 0, pre: '' } : undefined;
}

const quoted = (v: ReleaseVersion) => JSON.stringify(formatVersion(v));

/**
 * Checks a release version against the operator's supported minors, as HyperShift does before it
 * rolls a release out. Returns the upstream error message, or undefined when the version is fine.
 * @param version - version to roll out, e.g. `4.19.1`
 * @param currentVersion - version the cluster is at (for the y-stream downgrade check), if any
 * @param supportedVersions - supported `major.minor` list in any order, e.g. `['4.18', '4.17']`
 * @param platformType - `spec.platform.type`, named in the minimum-version message
 */
export function validateReleaseVersion(
  version: string,
  currentVersion: string | undefined,
  supportedVersions: readonly string[],
  platformType: string,
): string | undefined {
  const v = parseVersion(version);
  if (!v) return undefined; // nothing to compare; the tag was not a version
  if (v.major < 4 || (v.major === 4 && v.minor < 8)) return `releases before 4.8 are not supported. Attempting to use: ${quoted(v)}`;
  const cur = currentVersion ? parseVersion(currentVersion) : undefined;
  if (cur && cur.major === v.major && cur.minor > v.minor) {
    return `y-stream downgrade from ${quoted(cur)} to ${quoted(v)} is not supported`;
  }
  const minors = supportedVersions.map(minorVersion).filter((x): x is ReleaseVersion => x !== undefined);
  if (minors.length === 0) return undefined;
  const byAge = (a: ReleaseVersion, b: ReleaseVersion) => a.major - b.major || a.minor - b.minor;
  const sorted = [...minors].sort(byAge);
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  if (v.major > max.major || (v.major === max.major && v.minor > max.minor)) {
    return `the latest version supported is: ${quoted(max)}. Attempting to use: ${quoted(v)}`;
  }
  if (v.major < min.major || (v.major === min.major && v.minor < min.minor)) {
    return `the minimum version supported for platform ${platformType} is: ${quoted(min)}. Attempting to use: ${quoted(v)}`;
  }
  return undefined;
}

/** Compares two pre-release parts as semver does (`''` — a release — sorts after any pre-release). */
function comparePre(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const as = a.split('.');
  const bs = b.split('.');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i]!;
    const y = bs[i]!;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1; // numeric identifiers sort before alphanumeric ones
    return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

/** Orders two versions as semver does: negative when `a` is older, 0 when equal, positive when newer. */
export function compareVersions(a: ReleaseVersion, b: ReleaseVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePre(a.pre, b.pre);
}

/** How many minors a NodePool may lag its HostedCluster (HyperShift supports n-3 for every 4.y). */
export const MaxNodePoolMinorSkew = 3;

/**
 * Checks a NodePool's version against its HostedCluster's, as HyperShift's
 * `supportedversion.ValidateVersionSkew` does: the same major, not newer, and at most
 * {@link MaxNodePoolMinorSkew} minors older. Returns upstream's message, or undefined when the skew
 * is supported.
 * @param hostedClusterVersion - e.g. `4.18.5`
 * @param nodePoolVersion - e.g. `4.15.0`
 * @see https://github.com/openshift/hypershift/blob/main/support/supportedversion/version.go (ValidateVersionSkew)
 */
export function versionSkewProblem(hostedClusterVersion: ReleaseVersion, nodePoolVersion: ReleaseVersion): string | undefined {
  const hc = hostedClusterVersion;
  const np = nodePoolVersion;
  if (np.major !== hc.major) return `NodePool major version ${np.major} must match HostedCluster major version ${hc.major}`;
  if (compareVersions(np, hc) > 0) return `NodePool version ${formatVersion(np)} cannot be higher than the HostedCluster version ${formatVersion(hc)}`;
  if (hc.minor - np.minor > MaxNodePoolMinorSkew) {
    const min = Math.max(0, hc.minor - MaxNodePoolMinorSkew);
    return `NodePool minor version ${np.major}.${np.minor} is less than ${hc.major}.${min}, which is the minimum NodePool version compatible with the ${hc.major}.${hc.minor} HostedCluster`;
  }
  return undefined;
}
