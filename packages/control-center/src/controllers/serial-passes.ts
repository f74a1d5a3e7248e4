/**
 * One pass at a time for a level-triggered controller: {@link SerialPasses.kick} starts a pass, or,
 * while one runs, asks for one more after it (any number of kicks meanwhile make one), as a
 * client-go work queue keeps a key queued once while it is being processed.
 */
export class SerialPasses {
  private running = false;
  private dirty = false;
  private stopped = false;

  /**
   * @param pass - the controller's pass over the store
   * @param onError - told of a pass that failed (the next kick runs another)
   */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Runs a pass now, or once more after the one running; nothing once stopped. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = true;
    void this.pass()
      .catch(this.onError)
      .finally(() => {
        this.running = false;
        if (this.dirty) {
          this.dirty = false;
          this.kick();
        }
      });
  }

  /** Starts no more passes (one running finishes; the one it asked for is not run). */
  stop(): void {
    this.stopped = true;
  }
}
