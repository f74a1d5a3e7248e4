/**
 * A seedable source of randomness for the runtime's last tie-break, so tests, benchmarks and
 * `hcc scheduler --seed N` get the same decisions for the same inputs. Not for anything secret.
 */

/**
 * Returns a generator of numbers in [0, 1) from a 32-bit seed (mulberry32: small, fast, and
 * well spread for this use).
 * @param seed - any integer; only its low 32 bits matter
 * @see https://gist.github.com/tommyettinger/46a874533244883189143505d203312c
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
