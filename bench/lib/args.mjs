/**
 * Command-line arguments of the bench and its tools: a bad flag or value is one line on stderr
 * and exit code 2, before anything runs (README "Performance").
 */
import { accessSync, constants, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** A bad command line; its message is the one line printed. */
export class UsageError extends Error {}

/**
 * A scenario cannot run on this machine as it is set up (a limit too low, a tool missing): the
 * bench prints its message alone, without a stack trace, as the scenario's failure.
 */
export class PreconditionError extends Error {}

/**
 * Creates a directory the bench writes into (`--out`, `--data-dir`) and checks it is writable,
 * before any scenario runs, one level at a time: fs.mkdirSync's recursive mode spins forever
 * under /proc.
 * @param flag - the flag that named it, for the message
 * @param created - the directories it creates are pushed here (removed again when a later check fails)
 * @throws UsageError when it cannot be created or written
 */
export function ensureWritableDir(flag, dir, created = []) {
  const missing = [];
  let at = dir;
  for (;;) {
    try {
      if (!statSync(at).isDirectory()) throw new UsageError(`${flag} ${dir}: ${at} is not a directory`);
      break;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      if (err.code !== 'ENOENT') throw new UsageError(`${flag} ${dir}: ${err.message}`);
      missing.unshift(at);
      const up = path.dirname(at);
      if (up === at) throw new UsageError(`${flag} ${dir}: no such directory`);
      at = up;
    }
  }
  try {
    for (const d of missing) {
      mkdirSync(d);
      created.push(d);
    }
    accessSync(dir, constants.W_OK);
    const probe = path.join(dir, `.write-test-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (err) {
    throw new UsageError(`${flag} ${dir}: cannot write there (${err.code ?? err.message})`);
  }
}

/**
 * The `Usage:` block of a tool's header comment (from that line to the end of the comment), as
 * its `--help` prints it.
 * @param fileUrl - the tool's `import.meta.url`
 */
export function usageOf(fileUrl) {
  const lines = readFileSync(fileURLToPath(fileUrl), 'utf8').split('\n');
  const from = lines.findIndex((l) => /^ \* Usage:/.test(l));
  if (from < 0) return undefined;
  const to = lines.findIndex((l, i) => i > from && /^ \*\//.test(l));
  return lines
    .slice(from, to < 0 ? undefined : to)
    .map((l) => l.replace(/^ \* ?/, ''))
    .join('\n')
    .replace(/^Usage:/, 'usage:');
}

/**
 * `v` as a number of the given kind, at least `min` (more than it with `minExclusive`) and at most `max`.
 * @param flag - the flag it was given to, for the message
 * @throws UsageError naming the flag and the value
 */
export function numberArg(flag, v, { integer = false, min = 0, minExclusive = false, max = Infinity } = {}) {
  const x = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(v.trim()) ? Number(v) : NaN;
  const ok = Number.isFinite(x) && (!integer || Number.isInteger(x)) && (minExclusive ? x > min : x >= min);
  if (!ok) throw new UsageError(`${flag} must be a ${minExclusive && min === 0 ? 'positive' : 'non-negative'} ${integer ? 'integer' : 'number'}, got ${JSON.stringify(v)}`);
  if (x > max) throw new UsageError(`${flag} must be at most ${max}, got ${JSON.stringify(v)}`);
  return x;
}

/**
 * Parses a tool's arguments (node:util parseArgs, strict): unknown flags, missing or empty values,
 * bad numbers and values outside `choices` print one line (`<tool>: ...`) and exit with code 2.
 * @param tool - the tool's name, for the message
 * @param spec - flag name (without --) → { type: 'string' | 'boolean', default, number: numberArg's
 *   options (the value is then a number), choices: allowed strings, dir: a directory the tool
 *   writes into (resolved, created and checked writable with ensureWritableDir), check: a
 *   function of the value returning what is wrong with it (`must be ...`) or undefined }
 * @param usage - what `--help` (or `-h`) prints (exit 0); default: the flags
 * @param positionals - how many positional arguments it takes: a count, or [least, most]
 * @returns { values, positionals }: values by flag name, numbers converted
 */
export function toolArgs(tool, spec, { positionals = 0, argv = process.argv.slice(2), usage } = {}) {
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(`${usage ?? `usage: node bench/tools/${tool}.mjs ${Object.keys(spec).map((k) => `[--${k}${spec[k].type === 'boolean' ? '' : ' VALUE'}]`).join(' ')}`}\n`);
      process.exit(0);
    }
    // parseArgs takes `--rate -1` for a flag after an empty --rate ("ambiguous"): say what is wrong with the number.
    for (let i = 0; i < argv.length - 1; i++) {
      const s = spec[argv[i].replace(/^--/, '')];
      if (argv[i].startsWith('--') && s?.number && /^-\d/.test(argv[i + 1])) numberArg(argv[i], argv[i + 1], s.number);
    }
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
        const wrong = s.check?.(v);
        if (wrong) throw new UsageError(`--${k} ${wrong}, got ${JSON.stringify(v)}`);
      }
      // A directory the tool writes into: created and checked writable before anything runs.
      if (s.dir && typeof v === 'string') {
        v = path.resolve(v);
        ensureWritableDir(`--${k}`, v);
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
