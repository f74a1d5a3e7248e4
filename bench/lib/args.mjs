/**
 * Command-line arguments of the bench and its tools: a bad flag or value is one line on stderr
 * and exit code 2, before anything runs (README "Performance").
 */
import { parseArgs } from 'node:util';

/** A bad command line; its message is the one line printed. */
export class UsageError extends Error {}

/**
 * `v` as a number of the given kind.
 * @param flag - the flag it was given to, for the message
 * @throws UsageError naming the flag and the value
 */
export function numberArg(flag, v, { integer = false, min = 0, minExclusive = false } = {}) {
  const x = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(v.trim()) ? Number(v) : NaN;
  const ok = Number.isFinite(x) && (!integer || Number.isInteger(x)) && (minExclusive ? x > min : x >= min);
  if (!ok) throw new UsageError(`${flag} must be a ${minExclusive && min === 0 ? 'positive' : 'non-negative'} ${integer ? 'integer' : 'number'}, got ${JSON.stringify(v)}`);
  return x;
}

/**
 * Parses a tool's arguments (node:util parseArgs, strict): unknown flags, missing or empty values,
 * bad numbers and values outside `choices` print one line (`<tool>: ...`) and exit with code 2.
 * @param tool - the tool's name, for the message
 * @param spec - flag name (without --) → { type: 'string' | 'boolean', default, number: numberArg's
 *   options (the value is then a number), choices: allowed strings }
 * @param positionals - how many positional arguments it takes: a count, or [least, most]
 * @returns { values, positionals }: values by flag name, numbers converted
 */
export function toolArgs(tool, spec, { positionals = 0, argv = process.argv.slice(2) } = {}) {
  try {
    const options = Object.fromEntries(Object.entries(spec).map(([k, s]) => [k, { type: s.type ?? 'string' }]));
    const [least, most] = Array.isArray(positionals) ? positionals : [positionals, positionals];
    const parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: most > 0 });
    const n = parsed.positionals.length;
    if (n < least || n > most) {
      const count = least === most ? `${least}` : most === Infinity ? `at least ${least}` : `${least} to ${most}`;
      throw new UsageError(`expected ${count} argument${count.endsWith(' 1') || count === '1' ? '' : 's'}, got ${n}`);
    }
    const values = {};
    for (const [k, s] of Object.entries(spec)) {
      let v = parsed.values[k];
      if (v === undefined) v = s.default;
      else if (typeof v === 'string') {
        if (v.trim() === '') throw new UsageError(`--${k} needs a value, got an empty one`);
        if (s.choices && !s.choices.includes(v)) throw new UsageError(`--${k} must be one of ${s.choices.join(', ')}, got ${JSON.stringify(v)}`);
        if (s.number) v = numberArg(`--${k}`, v, s.number);
      }
      values[k] = v;
    }
    return { values, positionals: parsed.positionals };
  } catch (err) {
    // parseArgs's own errors (ERR_PARSE_ARGS_*) are one line too.
    if (!(err instanceof UsageError) && !String(err?.code).startsWith('ERR_PARSE_ARGS')) throw err;
    process.stderr.write(`${tool}: ${err.message.split('\n')[0]}\n`);
    process.exit(2);
  }
}
