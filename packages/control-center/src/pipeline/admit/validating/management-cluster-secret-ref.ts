/**
 * ManagementClusterSecretRef admission: who sets or changes a ManagementCluster's
 * `spec.kubeconfigSecretRef` must be allowed to `get` that Secret. The push syncer reads it with
 * the control center's rights and acts as whoever it names in that management cluster, so a
 * user allowed ManagementClusters but not the Secret could otherwise borrow another tenant's
 * credentials (a confused deputy), and point the fleet's placements, pull secrets included, at a
 * cluster reached with them. As kube-apiserver checks that whoever binds a role may hold it
 * (RBAC's escalation check), the check is a SubjectAccessReview of the request's user.
 * @see https://kubernetes.io/docs/concepts/security/rbac-good-practices/#escalate-verb
 */
import { ControlCenterGroup, kubeconfigRef, type ManagementCluster } from '@hcc/crds';
import * as apierrors from '../../../apierrors/status.js';
import type { ValidatingAdmission } from '../admission.js';

/**
 * The plugin above, on ManagementCluster writes whose `spec.kubeconfigSecretRef` is new or changed (deletes pass, and
 * everything passes when the request has no authorizer to ask): returns no field errors, throws StatusError 403 Forbidden
 * when the user may not `get` that Secret.
 */
export const managementClusterSecretRefAdmission: ValidatingAdmission = {
  name: 'ManagementClusterSecretRef',
  validate(a) {
    if (a.info.group !== ControlCenterGroup || a.info.resource !== 'managementclusters' || a.operation === 'DELETE' || !a.mayAccess) return [];
    const ref = kubeconfigRef(a.obj as ManagementCluster);
    if (!ref) return [];
    const was = kubeconfigRef(a.old as ManagementCluster | undefined);
    // Unchanged: the admin who set it was checked then (a status write or relabel passes).
    if (was && was.namespace === ref.namespace && was.name === ref.name) return [];
    if (a.mayAccess('get', { group: '', resource: 'secrets', namespace: ref.namespace, name: ref.name })) return [];
    throw apierrors.forbidden(
      { group: a.info.group, resource: a.info.resource },
      a.obj.metadata.name ?? '',
      `spec.kubeconfigSecretRef: User "${a.user.name}" cannot get the Secret ${ref.namespace}/${ref.name}, which the push syncer would read with the control center's rights and act as in that management cluster`,
    );
  },
};
