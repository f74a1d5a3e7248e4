/**
 * The bench's output: one table (printed as text, written as Markdown), the JSON results file
 * (its `table` holds exactly the numbers the table shows: every number is rounded once, here,
 * and both renderings print that rounded value), and an SVG chart of latency percentiles drawn
 * by hand (no chart library).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { median, round, roundNear } from './stats.mjs';

/**
 * Writes the results JSON `text` to `<dir>/<stem>.json`, created exclusively: when another run
 * (started in the same second, from another shell) has that name, to `<stem>-2.json`, `-3`, …,
 * never over another run's file. The caller writes the `.md` and `.svg` beside it.
 * @returns the path written, without `.json`
 * @throws the file system's error other than EEXIST (a missing or read-only directory)
 */
export function writeResultJson(dir, stem, text) {
  for (let n = 1; ; n++) {
    const base = path.join(dir, n === 1 ? stem : `${stem}-${n}`);
    try {
      writeFileSync(`${base}.json`, text, { flag: 'wx' });
      return base;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
  }
}

const columns = [
  ['scenario', 'scenario'],
  ['case', 'case'],
  ['value', 'result'],
  ['p50', 'p50 ms'],
  ['p99', 'p99 ms'],
  ['vsBaseline', 'vs baseline'],
  ['target', 'target'],
  ['met', 'met'],
  ['note', 'notes'],
];

/**
 * The median CPU other processes used over `samples` (% of one core), rounded; null when there
 * is no sample (a span shorter than the sampling interval).
 */
export function otherLoadPct(samples) {
  return samples.length ? Math.round(median(samples)) : null;
}

/**
 * "other processes used 12% of a core (median)" + `during`, or, with no sample, that they were
 * not sampled (never "NaN%").
 * @param during - what the span was, e.g. " during the run"
 */
export function otherLoadText(samples, during = '') {
  const pct = otherLoadPct(samples);
  return pct === null ? `other processes' CPU not sampled${during} (shorter than one sample)` : `other processes used ${pct}% of a core (median)${during}`;
}

/** Groups digits of a rounded number: 15800 → "15,800", 0.123 → "0.123". */
export function fmt(x) {
  if (x === null || x === undefined || Number.isNaN(x)) return '';
  if (typeof x !== 'number') return String(x);
  const [i, d] = String(x).split('.');
  return `${i.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${d ? `.${d}` : ''}`;
}

/**
 * Turns a scenario row into a table row with rounded numbers.
 * Row fields: case, rate+unit (or value+unit, or text), valueBound and p99Bound (a target's threshold,
 * which rounding keeps the shown number off), digits (decimals of the value; default 3
 * significant digits), p50, p99 (ms), vsBaseline, target, met (true/false), note.
 */
export function tableRow(scenario, r) {
  const raw = r.rate ?? r.value;
  // `digits`: decimals kept for a value compared with a target it lies close to (10.01 s against
  // "< 10 s" must not read as 10).
  // `valueBound`/`p99Bound`: the target's threshold, so that rounding never shows a number on or
  // across it that the met column contradicts (99.96 ms is not shown as 100 beside "< 100 ms: yes").
  const value = r.text !== undefined ? null : r.digits !== undefined && Number.isFinite(raw) ? Number(raw.toFixed(r.digits)) : roundNear(raw, r.valueBound);
  return {
    scenario,
    case: r.case,
    value,
    unit: r.unit ?? '',
    text: r.text,
    p50: round(r.p50),
    p99: roundNear(r.p99, r.p99Bound),
    vsBaseline: r.vsBaseline ?? '',
    target: r.target ?? '',
    met: r.met === undefined ? null : r.met,
    note: r.note ?? '',
  };
}

/**
 * How many timed runs a scenario makes: `ctx.fewRuns` for schedule, e2e and memory (they start
 * fresh processes per run), `ctx.longRuns` for watch and startup, `ctx.runs` (`--runs`) for the
 * others (baseline, api: per case).
 * @param ctx - `{ runs, fewRuns, longRuns }` as bench.mjs sets them (counts)
 */
export function runsPerScenario(name, ctx) {
  if (name === 'schedule' || name === 'e2e' || name === 'memory') return ctx.fewRuns;
  if (name === 'watch' || name === 'startup') return ctx.longRuns;
  return ctx.runs;
}

/**
 * The run count the heading names (`median of N runs`): `runs` when a scenario ran that many times,
 * else the count most of the scenarios ran (the smaller on a tie), so that `--quick --scenario
 * startup,memory` does not name a count nothing ran.
 * @param runsOf - runs by scenario name
 */
export function headlineRuns(runsOf, runs) {
  const counts = Object.values(runsOf);
  if (!counts.length || counts.includes(runs)) return runs;
  const tally = new Map();
  for (const n of counts) tally.set(n, (tally.get(n) ?? 0) + 1);
  return [...tally].sort(([a, x], [b, y]) => y - x || a - b)[0][0];
}

/**
 * The heading's note on scenarios that ran another number of times than `runs`: `""` when none
 * did, else e.g. ` (1 for watch and startup)` or ` (1 for watch; 3 for schedule and e2e)`, counts
 * ascending, scenarios in the order given.
 * @param runsOf - runs by scenario name, in run order
 */
export function otherRunsNote(runsOf, runs) {
  const byCount = new Map();
  for (const [name, n] of Object.entries(runsOf)) if (n !== runs) byCount.set(n, [...(byCount.get(n) ?? []), name]);
  if (!byCount.size) return '';
  const listed = (names) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]);
  return ` (${[...byCount].sort(([a], [b]) => a - b).map(([n, names]) => `${n} for ${listed(names)}`).join('; ')})`;
}

/**
 * Runs one scenario and gathers what it adds to the results: its table rows ({@link tableRow};
 * with `quick` the targets are shown but not judged: `met` null), its latencies for the chart
 * (labelled `<scenario>: <label>`) and its JSON details. When `run` throws, the rows, latencies
 * and details of the cases it finished first (what it put in `partial`: watch, schedule and e2e
 * fill it case by case) are kept, followed by a FAILED row holding the error's first line (at most
 * 120 characters); `error` is then the error's message.
 * @param name - the scenario's name (`api`, `watch`, …)
 * @param run - the scenario's `run`, called with `{ ...ctx, partial }` where `partial` is `{ rows: [], latencies: [], data: {} }`
 * @returns `{ rows, latencies, data, error, thrown }`: `data` undefined when a failed scenario finished no case; `error` (the message) and `thrown` (what `run` threw, for its stack) undefined when it did not fail
 */
export async function scenarioResult(name, run, ctx, { quick = false } = {}) {
  const partial = { rows: [], latencies: [], data: {} };
  const gather = (res, error) => ({
    rows: res.rows.map((r) => tableRow(name, quick ? { ...r, met: undefined } : r)),
    latencies: (res.latencies ?? []).map((l) => ({ ...l, label: `${name}: ${l.label}` })),
    data: error === undefined || res.rows.length ? res.data : undefined,
    error,
  });
  try {
    return gather(await run({ ...ctx, partial }));
  } catch (err) {
    const error = String(err?.message ?? err);
    const out = gather(partial, error);
    out.rows.push(tableRow(name, { case: 'FAILED', text: error.split('\n')[0].slice(0, 120) }));
    out.thrown = err;
    return out;
  }
}

function cell(row, key) {
  if (key === 'value') return row.text ?? `${fmt(row.value)} ${row.unit}`.trim();
  if (key === 'met') return row.met === null ? '' : row.met ? 'yes' : 'NO';
  if (key === 'p50' || key === 'p99') return fmt(row[key]);
  return String(row[key] ?? '');
}

/** The table as aligned plain text. */
export function textTable(rows) {
  const header = columns.map(([, h]) => h);
  const body = rows.map((r) => columns.map(([k]) => cell(r, k)));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const numeric = new Set([2, 3, 4]);
  const line = (cells) => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The table as GitHub Markdown. */
export function markdownTable(rows) {
  const header = columns.map(([, h]) => h);
  const align = columns.map((_, i) => ([2, 3, 4].includes(i) ? '---:' : '---'));
  const esc = (s) => s.replace(/\|/g, '\\|');
  return [
    `| ${header.join(' | ')} |`,
    `| ${align.join(' | ')} |`,
    ...rows.map((r) => `| ${columns.map(([k]) => esc(cell(r, k))).join(' | ')} |`),
  ].join('\n');
}

/**
 * A horizontal bar chart of p50 and p99 latency per case on a log scale, as SVG text.
 * @param items - { label, p50, p99 } in milliseconds
 */
export function latencySvg(items, title) {
  const rows = items.filter((i) => Number.isFinite(i.p99) && i.p99 > 0);
  const labelW = 330;
  const plotW = 560;
  const rowH = 18;
  const top = 48;
  const height = top + rows.length * rowH + 40;
  const width = labelW + plotW + 90;
  const lo = Math.pow(10, Math.floor(Math.log10(Math.max(1e-3, Math.min(...rows.map((r) => Math.max(r.p50, 1e-3)))))));
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...rows.map((r) => r.p99)))));
  const x = (v) => labelW + (Math.log10(Math.max(v, lo) / lo) / Math.log10(hi / lo)) * plotW;
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  out.push(`<text x="10" y="18" font-size="13" font-weight="bold">${esc(title)}</text>`);
  out.push(`<rect x="${labelW}" y="26" width="10" height="10" fill="#1f77b4"/><text x="${labelW + 14}" y="35">p50</text>`);
  out.push(`<rect x="${labelW + 50}" y="26" width="10" height="10" fill="#aec7e8"/><text x="${labelW + 64}" y="35">p99</text>`);
  out.push(`<text x="${labelW + 110}" y="35" fill="#555">milliseconds, log scale</text>`);
  for (let d = lo; d <= hi * 1.0001; d *= 10) {
    const xx = x(d).toFixed(1);
    out.push(`<line x1="${xx}" y1="${top - 4}" x2="${xx}" y2="${top + rows.length * rowH}" stroke="#ddd"/>`);
    out.push(`<text x="${xx}" y="${top + rows.length * rowH + 14}" text-anchor="middle" fill="#555">${fmt(round(d))}</text>`);
  }
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    out.push(`<text x="${labelW - 6}" y="${y + 12}" text-anchor="end">${esc(r.label)}</text>`);
    out.push(`<rect x="${labelW}" y="${y + 2}" width="${(x(r.p99) - labelW).toFixed(1)}" height="${rowH - 5}" fill="#aec7e8"/>`);
    out.push(`<rect x="${labelW}" y="${y + 2}" width="${(x(r.p50) - labelW).toFixed(1)}" height="${rowH - 5}" fill="#1f77b4"/>`);
    out.push(`<text x="${(x(r.p99) + 4).toFixed(1)}" y="${y + 12}" fill="#333">${fmt(round(r.p50))} / ${fmt(round(r.p99))}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
