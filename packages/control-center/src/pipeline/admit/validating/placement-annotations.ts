/**
 * Placement-annotations admission: what a HostedCluster asks of its placement is checked when it
 * is written, not only when the scheduler reads it, so a typo is a 422 on `kubectl apply` (as a
 * pod's invalid nodeSelector or tolerations are) instead of a HostedCluster that stays
 * Unschedulable:
 * - `controlcenter.hcc.dev/management-cluster-selector` must parse as a label selector;
 * - `controlcenter.hcc.dev/tolerations` must be a valid JSON list of tolerations;
 * - on create, the control-plane namespace `<namespace>-<name>` that HyperShift creates in the
 *   management cluster must be a valid Namespace name (an RFC 1123 label of at most 63
 *   characters: a name with a dot is refused, its control plane could never be created).
 * An annotation an update leaves as it was is not checked again (objects stored before this check
 * can still be updated), as upstream ratchets unchanged values. An update that changes one of
 * these annotations (or the scheduler profile) on a HostedCluster already placed is accepted with
 * a warning: a placement is never re-evaluated (as a pod's nodeSelector binds only at scheduling),
 * so it stays where it is; the change counts only for a HostedCluster created anew.
 * The control-plane namespace is HyperShift's manifests.HostedControlPlaneNamespace(namespace, name).
 * @see https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names
 */
import { AnnotationManagementClusterSelector, AnnotationSchedulerProfile, AnnotationTolerations, HyperShiftGroup, LabelManagementCluster } from '@hcc/crds';
import { parseSelector, parseTolerations } from '@hcc/client';
import * as field from '../../../apierrors/field.js';
import type { ValidatingAdmission } from '../admission.js';
import { isDNS1123Label } from '@hcc/client';

const annotationPath = (key: string) => `metadata.annotations[${key}]`;

/**
 * The plugin above, on HostedCluster writes (deletes pass): field errors `invalid` for each bad annotation or name,
 * warnings through `warn` for a placed one's changed annotations. Never throws.
 */
export const placementAnnotationsAdmission: ValidatingAdmission = {
  name: 'PlacementAnnotations',
  validate({ info, operation, obj, old, warn }) {
    if (operation === 'DELETE') return [];
    if (info.group !== HyperShiftGroup || info.resource !== 'hostedclusters') return [];
    const errs: field.FieldError[] = [];
    const changed = (key: string) => {
      const v = obj.metadata.annotations?.[key];
      return v !== undefined && v.trim() !== '' && v !== old?.metadata.annotations?.[key] ? v : undefined;
    };
    const selector = changed(AnnotationManagementClusterSelector);
    if (selector !== undefined) {
      try {
        parseSelector(selector);
      } catch (e) {
        errs.push(field.invalid(annotationPath(AnnotationManagementClusterSelector), selector, `not a label selector: ${(e as Error).message}`));
      }
    }
    const tolerations = changed(AnnotationTolerations);
    if (tolerations !== undefined) {
      const t = parseTolerations(tolerations);
      if (t instanceof Error) errs.push(field.invalid(annotationPath(AnnotationTolerations), tolerations, `not a toleration list: ${t.message}`));
    }
    const placedOn = old?.metadata.labels?.[LabelManagementCluster];
    if (placedOn && obj.metadata.labels?.[LabelManagementCluster] === placedOn) {
      for (const key of [AnnotationManagementClusterSelector, AnnotationTolerations, AnnotationSchedulerProfile]) {
        const now = obj.metadata.annotations?.[key] ?? '';
        if (now === (old?.metadata.annotations?.[key] ?? '')) continue;
        const stays = `this HostedCluster is already placed on management cluster ${placedOn}; placements are not re-evaluated, so it stays there (as a pod stays on its node when its nodeSelector changes)`;
        warn?.(
          now === ''
            ? `${annotationPath(key)}: removed, but ${stays}`
            : `${annotationPath(key)}: ${stays}; it takes effect only for a HostedCluster created anew (deleting this one tears its control plane down)`,
        );
      }
    }
    if (!old && obj.metadata.name && obj.metadata.namespace) {
      const cpNamespace = `${obj.metadata.namespace}-${obj.metadata.name}`;
      if (cpNamespace.length > 63) {
        errs.push(field.invalid('metadata.name', obj.metadata.name, `the control-plane namespace "${cpNamespace}" HyperShift creates for it would be ${cpNamespace.length} characters; a Namespace name must be no more than 63 characters`));
      } else if (isDNS1123Label(cpNamespace).length > 0) {
        errs.push(field.invalid('metadata.name', obj.metadata.name, `the control-plane namespace "${cpNamespace}" HyperShift creates for it would not be a valid Namespace name (a lowercase RFC 1123 label: no dots); HyperShift also derives the infraID from the name`));
      }
    }
    return errs;
  },
};
