/**
 * CRD naming: a CustomResourceDefinition refused names another CRD of its group holds
 * (`NamesAccepted=False`, e.g. `KindConflict`; never Established, so not served) gets them once
 * that CRD is deleted or gives them up, without an update of its own — as kube's
 * NamingConditionController requeues every CRD of a group when one of them changes; and a
 * NamesAccepted written by hand into a CRD's status is decided again.
 *
 * Level-triggered: a pass on each change of a CRD (and every `resyncMs`) decides the names of every
 * CRD ({@link hasNamesToDecide}) against the names the others hold, and writes the status when it
 * changes (the registry then serves the CRD, or stops, as its conditions say).
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/controller/status/naming_controller.go
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { Store, StoreWatch } from '../storage/store.js';
import { SerialPasses } from './serial-passes.js';
import { storagePrefix } from '../registry/types.js';
import { crdNamesInUse, customresourcedefinitions, renameCRD, hasNamesToDecide } from '../registry/builtin/customresourcedefinitions.js';

/**
 * The controller above, over one store: {@link CRDNamingController.start} watches the CRDs and runs
 * a pass on each change and every `resyncMs`; {@link CRDNamingController.stop} ends the watch and the
 * timer. One pass at a time (a change meanwhile asks for one more); a failed write is logged (warn)
 * and tried again by the next pass.
 */
export class CRDNamingController {
  private watch?: StoreWatch;
  private timer?: NodeJS.Timeout;
  private readonly passes = new SerialPasses(() => this.pass(), (err) => this.log.warn({ err, controller: 'crd-naming' }, 'pass failed; retrying'));

  /** @param resyncMs - how often a pass runs besides on changes, in milliseconds */
  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly resyncMs = 30_000,
  ) {}

  /** Watches the CRDs from the store's current revision and runs a first pass. */
  start(): void {
    const kick = () => this.kick();
    this.watch = this.store.watch(storagePrefix(customresourcedefinitions), this.store.currentRevision(), kick);
    this.timer = setInterval(kick, this.resyncMs);
    this.timer.unref();
    this.kick();
  }

  /** Ends the watch and the timer; a pass running finishes, no other starts. */
  stop(): void {
    this.passes.stop();
    this.watch?.stop();
    clearInterval(this.timer);
  }

  private kick(): void {
    this.passes.kick();
  }

  /** Decides again the names of every CRD, writing those whose status changes. */
  async pass(): Promise<void> {
    const prefix = storagePrefix(customresourcedefinitions);
    // With etcd, first catch up with what other control centers wrote (narrows two replicas granting one name twice).
    await this.store.syncToLatest?.();
    const crds = this.store.list(prefix).items.filter(({ object }) => hasNamesToDecide(object));
    const namesInUse = crdNamesInUse(this.store);
    for (const { object } of crds) {
      const name = object.metadata.name!;
      let changed = false;
      await this.store
        .transact(`${prefix}${name}`, (cur) => {
          changed = false;
          if (!cur || !hasNamesToDecide(cur)) return { op: 'none' };
          const status = renameCRD(cur, namesInUse, new Date());
          if (isDeepStrictEqual(status, cur.status)) return { op: 'none' };
          changed = true;
          return { op: 'put', object: { ...cur, status } };
        })
        .catch((err: unknown) => this.log.warn({ err, controller: 'crd-naming', key: name }, 'naming failed; retrying'));
      if (changed) this.log.info({ controller: 'crd-naming', key: name }, 'names decided again: another CRD of the group changed, or its status did');
    }
  }
}
