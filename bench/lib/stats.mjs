/**
 * Latency samples and summaries. Percentiles use the nearest-rank method on the sorted samples
 * (p99 of 1,000 samples is the 990th smallest).
 */

/** A growable buffer of latency samples in milliseconds. */
export class Samples {
  #a = new Float64Array(1024);
  #n = 0;
  push(v) {
    if (this.#n === this.#a.length) {
      const b = new Float64Array(this.#a.length * 2);
      b.set(this.#a);
      this.#a = b;
    }
    this.#a[this.#n++] = v;
  }
  get length() {
    return this.#n;
  }
  /** A sorted copy of the samples. */
  sorted() {
    return this.#a.slice(0, this.#n).sort();
  }
  /** Appends every sample of another buffer. */
  concat(other) {
    const s = other.sorted();
    for (let i = 0; i < s.length; i++) this.push(s[i]);
    return this;
  }
}

/** Nearest-rank percentile (q in 0..100) of a sorted array. */
export function percentile(sorted, q) {
  if (!sorted.length) return NaN;
  // The tolerance keeps a rank that is a whole number in exact arithmetic (99.9% of 1,000 = 999)
  // from rounding up through floating-point error (0.999 * 1000 = 999.0000000000001).
  const rank = Math.ceil((q * sorted.length) / 100 - 1e-9);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** count, p50, p90, p99, p99.9, max and mean of samples (Samples or array), in their unit. */
export function summarize(samples) {
  const s = samples instanceof Samples ? samples.sorted() : Float64Array.from(samples).sort();
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += s[i];
  return {
    n: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    p999: percentile(s, 99.9),
    max: s.length ? s[s.length - 1] : NaN,
    mean: s.length ? sum / s.length : NaN,
  };
}

/**
 * Median of numbers (the mean of the middle two for an even count). Values that are not finite
 * (a run's percentile without samples is NaN) are left out; NaN when none is left. The scenarios
 * throw on failed requests and count missing events, so a run without samples is not silent.
 */
export function median(nums) {
  const s = [...nums].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Whether `shown`, a rounding of `x`, reads on the same side of a target's `bound` as `x`: not on
 * the bound unless `x` is, not across it (99.96 ms shown as `100` beside "p99 < 100 ms: yes" would
 * contradict the met column; 1,999.6/s shown as `2,000` beside "≥ 2,000/s: NO" too).
 */
function sameSide(x, shown, bound) {
  return Math.sign(shown - bound) === Math.sign(x - bound);
}

/** `first`, or `x` with the fewest decimals (up to 6) that keep it on its side of `bound`. */
function keepSide(x, first, bound) {
  if (bound === undefined || !Number.isFinite(x) || sameSide(x, first, bound)) return first;
  for (let d = 0; d <= 6; d++) {
    const n = Number(x.toFixed(d));
    if (sameSide(x, n, bound)) return n;
  }
  return Number(x.toFixed(6));
}

/**
 * `round(x)`, or, when that would put the number on or across `bound` where `x` is not, `x` with
 * as many more decimals (up to 6) as it takes to stay on its side.
 * @param x - the value a target judges (ms, s, MB, a rate)
 * @param bound - the target's threshold in the same unit (100 for "p99 < 100 ms"); undefined: plain round
 */
export function roundNear(x, bound) {
  return keepSide(x, round(x), bound);
}

/**
 * A ratio as a whole percentage (`0.54` → `"54%"`), with decimals where the whole number would
 * read on or across the target's `bound` (0.4996 against ≥ 50% reads `"49.96%"`, not `"50%"`).
 * @param ratio - e.g. 0.54
 * @param bound - the target as a ratio (0.5), or undefined
 */
export function percentNear(ratio, bound) {
  const x = ratio * 100;
  return `${keepSide(x, Math.round(x), bound === undefined ? undefined : bound * 100)}%`;
}

/** Rounds to 3 significant digits (at most 2 decimals): the precision every table cell and the JSON carry. */
export function round(x) {
  if (x === undefined || x === null || !Number.isFinite(x)) return x ?? null;
  if (x === 0) return 0;
  const digits = Math.max(0, Math.min(2, 2 - Math.floor(Math.log10(Math.abs(x)))));
  const r = Number(x.toFixed(digits));
  return Math.abs(r) >= 1000 ? Math.round(r) : r;
}
