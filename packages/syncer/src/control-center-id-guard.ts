/**
 * Confirms, before the syncer deletes or replaces anything in its management cluster, that the
 * control center it talks to is still the one whose ID it read at start (control-center-identity.ts).
 *
 * A control center can be replaced under the same address and credentials: one started again on an
 * empty data dir that kept its certificates and tokens, or an etcd wiped, rebuilt or restored from
 * another cluster's backup. Its kube-system namespace then has another uid, and its informers'
 * relist shows none of the objects the copies were made from. Taken at face value that relist says
 * "every object is gone": a syncer would delete every copy, and HyperShift would tear down every
 * hosted control plane. So every such step first reads the ID again; when it changed, the syncer
 * stops without doing it (`onChanged`), and the syncer started again (its Deployment or `hcc up`
 * restarts it) serves the new control center and leaves the old one's copies alone, reporting
 * them (OtherControlCenter), as one started after the change does.
 */
import type { Logger } from 'pino';
import { realClock, sleep } from '@hcc/client';

/** Thrown by {@link ControlCenterIDGuard.confirm} when the control center's ID changed: nothing may be deleted. */
export class ControlCenterChangedError extends Error {
  constructor(
    readonly was: string,
    readonly now: string,
  ) {
    super(
      `the control center's ID changed from ${was} to ${now} (the uid of its kube-system namespace): another control center answers at this address (one started on an empty data dir, or an etcd wiped or restored), whose objects are not the ones the copies here were made from; this syncer stops without deleting anything, and started again serves the new control center and leaves the old one's copies (OtherControlCenter)`,
    );
    this.name = 'ControlCenterChangedError';
  }
}

/**
 * Reads the control center's ID again on demand: a caller's {@link confirm} resolves only on a
 * read that began after the call (callers that arrive while a read is in flight share the next
 * one), so a change made before the call is always seen.
 */
export class ControlCenterIDGuard {
  private current: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private changed: ControlCenterChangedError | undefined;
  /** Reconnects seen ({@link suspect}), and the count a successful read began after. */
  private outages = 0;
  private confirmedAfter = 0;

  /**
   * @param id - the ID read at start
   * @param read - reads the ID now (throws what the client throws)
   * @param onChanged - called once, with the error, when a read finds another ID
   */
  constructor(
    readonly id: string,
    private readonly read: () => Promise<string>,
    private readonly onChanged: (err: ControlCenterChangedError) => void,
  ) {}

  /**
   * Resolves when a read begun after this call found the same ID.
   * @throws ControlCenterChangedError when it found another (and from then on, at once)
   * @throws what the read throws (the control center unreachable: the caller retries later)
   */
  confirm(): Promise<void> {
    if (this.changed) return Promise.reject(this.changed);
    if (!this.current) {
      this.current = this.readOnce().finally(() => (this.current = undefined));
      return this.current;
    }
    this.next ??= this.current
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.confirm();
      });
    return this.next;
  }

  /**
   * Marks that the control center is in sight again after an outage (an informer listed or
   * watched again): until a read begun after this confirms the ID, {@link settled} waits for one.
   */
  suspect(): void {
    this.outages++;
  }

  /**
   * Resolves at once unless the control center came back from an outage since the last
   * confirmation; then on a confirmation (writes to either side wait for it, so nothing is copied
   * from, or reported to, another control center that answers now).
   * @throws ControlCenterChangedError when the ID changed; the read's error when reads fail for ~5 s
   */
  async settled(): Promise<void> {
    // A read that fails (the control center answered a list a moment ago, then not this) is
    // retried here every 200 ms for up to 5 s, so the workers wait instead of each key backing
    // off on its own; after that the caller's error handling takes over.
    for (let attempt = 0; ; attempt++) {
      if (this.changed) throw this.changed;
      if (this.confirmedAfter === this.outages) return;
      try {
        await this.confirm();
        return;
      } catch (err) {
        if (err instanceof ControlCenterChangedError || attempt >= 25) throw err;
        await sleep(realClock, 200);
      }
    }
  }

  /** Confirms in the background (on a reconnect): a change stops the syncer; a failed read is logged at debug. */
  check(log: Logger): void {
    this.confirm().catch((err) => {
      if (!(err instanceof ControlCenterChangedError)) log.debug({ err }, 'reading the control center ID again failed; the next deletion reads it first');
    });
  }

  private async readOnce(): Promise<void> {
    const outages = this.outages;
    const now = await this.read();
    if (now === this.id) {
      this.confirmedAfter = Math.max(this.confirmedAfter, outages);
      return;
    }
    if (!this.changed) {
      this.changed = new ControlCenterChangedError(this.id, now);
      this.onChanged(this.changed);
    }
    throw this.changed;
  }
}
