// Preloaded with `node -r` into a process whose wall clock should be off by SKEW_MS milliseconds
// (a syncer on a host with a wrong clock): Date.now() and new Date() move, timers do not.
const skew = Number(process.env.SKEW_MS || 0);
const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);
class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(realNow() + skew);
    else super(...args);
  }
  static now() {
    return realNow() + skew;
  }
}
globalThis.Date = SkewedDate;
