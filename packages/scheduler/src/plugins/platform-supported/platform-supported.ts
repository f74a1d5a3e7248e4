/**
 * PlatformSupported filter: the HostedCluster's `spec.platform.type` must be one of the cluster's
 * `spec.platforms` (an empty or absent list means every platform). A HostedCluster without a
 * platform type counts as `None`, HyperShift's default.
 * @see https://hypershift.pages.dev/reference/api/#hypershift.openshift.io/v1beta1.PlatformType
 */
import { Status, type FilterPlugin } from '../../framework/types.js';
import type { HostedCluster } from '@hcc/crds';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.PlatformSupported;
/** Reason, e.g. `platform KubeVirt not supported`. */
export const errReasonPlatform = (type: string): string => `platform ${type} not supported`;

/** The platform type of a HostedCluster (`None` when absent). */
export const platformOf = (hc: HostedCluster): string => hc.spec?.platform?.type || 'None';

/** The PlatformSupported filter plugin. */
export const platformSupported = {
  name: Name,
  filter: (hc, cluster) => {
    const platforms = cluster.cluster.spec?.platforms;
    if (!platforms || platforms.length === 0) return Status.success();
    const t = platformOf(hc);
    return platforms.includes(t) ? Status.success() : Status.unschedulable(errReasonPlatform(t));
  },
} satisfies FilterPlugin;
