/**
 * ReleaseSupported filter: the HostedCluster's OpenShift release (major.minor, parsed from the
 * tag of `spec.release.image`, e.g. `quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64` →
 * `4.16`) must be among the versions the cluster's HyperShift operator supports, as its syncer
 * reports them in `status.supportedVersions` (`["4.22", ..., "4.14"]`, from the operator's
 * supported-versions ConfigMap). An image without a version tag (a digest, a custom tag) or a
 * cluster that reports no list passes: the filter only rules out what it knows is unsupported.
 * @see https://hypershift.pages.dev/reference/versioning-support/
 */
import type { HostedCluster } from '@hcc/crds';
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.ReleaseSupported;
/** Reason, e.g. `release 4.12 not supported`. */
export const errReasonRelease = (version: string): string => `release ${version} not supported`;

/** `major.minor` at the start of a version string (`4.16.12-x86_64` → `4.16`), or undefined. */
export function minorVersion(version: string): string | undefined {
  const m = /^v?(\d+)\.(\d+)(?:$|[.\-+])/.exec(version.trim());
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
}

/**
 * The release `major.minor` of a release image reference, from its tag; undefined for a
 * reference by digest alone or a tag that does not start with a version. A reference by tag and
 * digest (`repo:tag@sha256:...`, as release images are pinned) reads the tag: the digest says
 * which image, the tag which release it was published as.
 * @param image - e.g. `quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64`
 * @see https://github.com/distribution/reference (reference grammar: name [":" tag] ["@" digest])
 */
export function releaseVersionOfImage(image: string | undefined): string | undefined {
  if (!image) return undefined;
  const at = image.indexOf('@');
  const named = at < 0 ? image : image.slice(0, at);
  const lastPart = named.slice(named.lastIndexOf('/') + 1);
  const colon = lastPart.lastIndexOf(':');
  return colon < 0 ? undefined : minorVersion(lastPart.slice(colon + 1));
}

/** The release `major.minor` a HostedCluster asks for, or undefined when unknown. */
export const releaseVersionOf = (hc: HostedCluster): string | undefined => releaseVersionOfImage(hc.spec?.release?.image);

/** The ReleaseSupported filter plugin. */
export const releaseSupported = {
  name: Name,
  filter: (hc, cluster) => {
    const supported = cluster.cluster.status?.supportedVersions;
    if (!supported || supported.length === 0) return Status.success();
    const v = releaseVersionOf(hc);
    if (!v) return Status.success();
    return supported.some((s) => minorVersion(s) === v) ? Status.success() : Status.unschedulable(errReasonRelease(v));
  },
} satisfies FilterPlugin;
