#!/usr/bin/env node
/**
 * Renders the README's "Kubernetes API compatibility" table from what the conformance suite
 * observed (`test/conformance/.results/*.json`, written by `npx vitest run test/conformance`).
 *
 *   node test/conformance/table.mjs            # print the table
 *   node test/conformance/table.mjs --readme   # replace it in README.md (between the markers)
 *
 * Rows are operations (kubectl wording; the client libraries fill in the rows whose API
 * behaviour they exercise), columns are clients; `—` means the client was not checked for it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const readme = path.join(here, '..', '..', 'README.md');
const clients = [
  ['kubectl-1.20', 'kubectl 1.20'],
  ['kubectl-1.28', 'kubectl 1.28'],
  ['kubectl-1.35', 'kubectl 1.35'],
  ['client-node', 'client-node'],
  ['python', 'python3-kubernetes'],
];
const rows = [
  'create namespace',
  'create secret generic',
  'create configmap',
  'create -f (custom resource)',
  'create --dry-run=server',
  'apply (client-side)',
  'apply: unknown field refused',
  'apply --server-side',
  'apply --server-side: conflicts and --force-conflicts',
  'apply --server-side: fields no longer applied are removed',
  'apply --dry-run=server',
  'diff',
  'get -o wide',
  'get -o yaml',
  'get -o json',
  'get -o jsonpath',
  'get -o custom-columns',
  'get --sort-by',
  'get -l (in, notin, !key)',
  'get --field-selector',
  'get -w',
  'informer (list+watch)',
  'informer: 410 Expired → relist',
  'watch: 410 Expired for a compacted resourceVersion',
  'describe',
  'edit',
  'patch --type=strategic (ConfigMap, Secret)',
  'patch --type=merge',
  'patch --type=json',
  'patch --type=strategic on a custom resource (refused)',
  'update with a stale resourceVersion (409)',
  'label',
  'annotate',
  'scale nodepool',
  'wait --for=condition',
  'wait --for=jsonpath',
  'wait --for=delete',
  'delete --cascade=orphan, =foreground',
  'delete (finalizers, --wait)',
  'delete namespace',
  'explain hostedcluster.spec.platform',
  'api-resources',
  'api-versions',
  'CRD: create, use, delete',
];

const cells = {};
const missing = [];
for (const [id] of clients) {
  const f = path.join(here, '.results', `${id}.json`);
  if (!existsSync(f)) {
    missing.push(id);
    continue;
  }
  cells[id] = JSON.parse(readFileSync(f, 'utf8')).cells;
}
const extra = [...new Set(Object.values(cells).flatMap((c) => Object.keys(c)))].filter((r) => !rows.includes(r));
const cell = (v) => (v === undefined ? '—' : v === '✓' ? '✓' : `✗ ${v}`.replace(/^✗ n\/a: /, 'n/a: ').replace(/\|/g, '\\|'));
const lines = [
  `| operation | ${clients.map(([, label]) => label).join(' | ')} |`,
  `|---|${clients.map(() => '---').join('|')}|`,
  ...[...rows, ...extra].map((r) => `| \`${r}\` | ${clients.map(([id]) => cell(cells[id]?.[r])).join(' | ')} |`),
];
const table = lines.join('\n');

if (process.argv.includes('--readme')) {
  const start = '<!-- conformance-table:start -->';
  const end = '<!-- conformance-table:end -->';
  const text = readFileSync(readme, 'utf8');
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`README.md has no ${start} … ${end} markers`);
  writeFileSync(readme, `${text.slice(0, a + start.length)}\n${table}\n${text.slice(b)}`);
  console.log(`README.md: table updated (${rows.length + extra.length} operations${missing.length ? `; no results for ${missing.join(', ')}` : ''})`);
} else {
  console.log(table);
  if (missing.length) console.error(`no results for ${missing.join(', ')}: run npx vitest run test/conformance`);
}
