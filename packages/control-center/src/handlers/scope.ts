/**
 * The state one resource request carries through the handlers: which resource, which object,
 * and the server's shared parts (store, registry, clock).
 */
import type { Store } from '../storage/store.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceInfo, StrategyContext } from '../registry/types.js';
import type { RequestInfo } from '../pipeline/request-info.js';
import type { PlacementCounts } from './placement-capacity.js';

/** What every handler needs. */
export interface RequestScope {
  ri: RequestInfo;
  info: ResourceInfo;
  store: Store;
  registry: Registry;
  ctx: StrategyContext;
  /** The authenticated user name (for managedFields and audit). */
  user: string;
  /** The User-Agent header (kubectl's default field managers derive from it). */
  userAgent?: string;
  /**
   * Asks the authorizer whether the user may also do `verb` on this request's object (an extra
   * check a handler makes, e.g. `unsafe-delete-ignore-read-errors`).
   * @returns undefined when allowed, else the authorizer's reason ('' when it gave none)
   */
  authorizeVerb?: (verb: string) => string | undefined;
  /**
   * Throws 403 (kube's `cannot create resource` message) when the user may not `create` this
   * request's object: what a PUT or apply that would create it must also be allowed.
   */
  authorizeCreate?: () => void;
  /** What each ManagementCluster holds, for the binding subresource's capacity guard (absent: no guard). */
  placements?: PlacementCounts;
}
