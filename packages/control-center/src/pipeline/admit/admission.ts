/**
 * Validating admission: checks that run after the resource strategy has prepared and validated
 * an object and before it is stored, with the requesting user in view. They never mutate; a
 * rejection is a list of field errors (422 Invalid), or a thrown StatusError (403 Forbidden) for
 * a request this user may not make at all (kube's admission.NewForbidden), so nothing is
 * half-written.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/
 */
import type { KubeObject } from '@hcc/crds';
import type { FieldError } from '../../apierrors/field.js';
import type { ResourceInfo } from '../../registry/types.js';
import type { UserInfo } from '../authenticate.js';
import type { Store } from '../../storage/store.js';

/**
 * The operation being admitted (admission.Operation): a patch, a status write or a binding is an
 * UPDATE; a DELETE is the delete of the stored object, or the first step of it (setting its
 * deletionTimestamp).
 */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What an admission check sees. `old` is undefined on create; on delete `obj` and `old` are both the stored object. */
export interface AdmissionAttributes {
  info: ResourceInfo;
  operation: AdmissionOperation;
  obj: KubeObject;
  old: KubeObject | undefined;
  user: UserInfo;
  store: Store;
  /** Adds a warning to the response (a `Warning: 299` header kubectl prints); absent: warnings are dropped. */
  warn?(message: string): void;
  /**
   * Whether the requesting user may do `verb` on one object (a SubjectAccessReview of the
   * request's user, against the control center's authorizer); absent: no user to ask about (the
   * server's own writes).
   */
  mayAccess?(verb: string, target: { group: string; resource: string; namespace: string; name: string }): boolean;
}

/** One validating admission plugin; it may throw a StatusError (403) instead of returning field errors. */
export interface ValidatingAdmission {
  name: string;
  validate(a: AdmissionAttributes): FieldError[];
}

/** Runs every plugin; the errors of all of them are reported together. */
export function runAdmission(plugins: readonly ValidatingAdmission[], a: AdmissionAttributes): FieldError[] {
  const errs: FieldError[] = [];
  for (const p of plugins) errs.push(...p.validate(a));
  return errs;
}
