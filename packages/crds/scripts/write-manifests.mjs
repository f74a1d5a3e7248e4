#!/usr/bin/env node
// Writes packages/crds/manifests/<crd name>.yaml from the TypeScript constants (built to dist/),
// and manifests/management-cluster/<crd name>.yaml: HyperShift's CRDs as a management cluster
// holds them (without the control center's MANAGEMENT CLUSTER column; the kind demo installs these).
// Run: npm run manifests -w @hcc/crds   (builds first). `--check` only compares and exits 1 on drift.
// src/crds/manifests.test.ts runs the same comparison, so the YAML and the constants never drift.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';

/** Directory the manifests live in. */
export const manifestsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'manifests');

/**
 * The exact text of a CRD manifest: a generated-file header, then YAML (2-space indent, no line
 * folding, so `kubectl apply -f` and diffs see one line per field).
 * @param {object} crd - an apiextensions.k8s.io/v1 CustomResourceDefinition
 * @returns {string}
 */
export function manifestText(crd) {
  const header = '# Generated from packages/crds/src/crds by scripts/write-manifests.mjs. Do not edit.\n';
  return header + stringify(crd, { lineWidth: 0, indent: 2, aliasDuplicateObjects: false });
}

async function main() {
  const check = process.argv.includes('--check');
  const { allCRDs, hyperShiftCRDsForManagementClusters, managementClusterManifestsDir, manifestFileName } = await import('../dist/index.js');
  const mcDir = join(manifestsDir, managementClusterManifestsDir);
  await mkdir(mcDir, { recursive: true });
  const wanted = [
    ...allCRDs.map((crd) => ({ crd, dir: manifestsDir })),
    ...hyperShiftCRDsForManagementClusters.map((crd) => ({ crd, dir: mcDir })),
  ];
  let drift = 0;
  for (const { crd, dir } of wanted) {
    const file = join(dir, manifestFileName(crd));
    const want = manifestText(crd);
    const have = await readFile(file, 'utf8').catch(() => '');
    if (have === want) continue;
    drift++;
    if (check) console.error(`out of date: ${file}`);
    else await writeFile(file, want);
  }
  if (check && drift > 0) process.exit(1);
  if (!check) console.log(`${wanted.length} manifests in ${manifestsDir} (${drift} rewritten)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
