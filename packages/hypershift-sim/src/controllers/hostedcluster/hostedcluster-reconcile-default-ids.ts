/**
 * Step: default `spec.clusterID` (a random RFC 4122 v4 UUID) and `spec.infraID`
 * (`<name>-<5 random characters>`) when empty, as HyperShift's `defaultClusterIDsIfNeeded` does
 * (the CLI usually sets infraID already). Both are immutable once set (CEL), so this runs at most
 * once per field. Writes spec, then stops; a HostedCluster without a spec is left as it is.
 * @see https://github.com/openshift/hypershift/blob/main/support/infraid/infraid.go
 */
import type { HostedCluster } from '@hcc/crds';
import type { Step } from '../../step.js';
import type { HostedClusterDeps } from './hostedcluster-reconcile.js';

/** k8s.io/apimachinery/pkg/util/rand's alphabet: lowercase alphanumerics without vowels and look-alikes. */
const randAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** utilrand.String(n) with an injected random source. */
export function randomString(n: number, random: () => number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += randAlphabet[Math.floor(random() * randAlphabet.length) % randAlphabet.length];
  return s;
}

/** infraid.New: `<name>-<5 random characters>`. */
export const newInfraID = (name: string, random: () => number): string => `${name}-${randomString(5, random)}`;

/**
 * The step above: `'continue'` when both IDs are set, else fills the empty ones, writes with `updateHostedCluster`
 * (whose errors it throws) and stops.
 */
export function defaultClusterIDs(deps: Pick<HostedClusterDeps, 'random' | 'newUUID' | 'updateHostedCluster'>): Step<HostedCluster> {
  return {
    name: 'defaultClusterIDs',
    async run(hc) {
      // No spec at all (`{}`, see withSpec): one holding only the two IDs would be refused, its
      // required fields (release, pullSecret, platform, ...) missing, and the pass would fail on
      // every retry; the status step reports what is wrong (ValidReleaseImage=False) instead.
      if (Object.keys(hc.spec).length === 0) return 'continue';
      let changed = false;
      if (!hc.spec.clusterID) {
        hc.spec.clusterID = deps.newUUID();
        changed = true;
      }
      if (!hc.spec.infraID) {
        hc.spec.infraID = newInfraID(hc.metadata.name!, deps.random);
        changed = true;
      }
      if (!changed) return 'continue';
      await deps.updateHostedCluster(hc);
      return 'stop';
    },
  };
}
