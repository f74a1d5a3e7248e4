/**
 * The committed YAML under packages/crds/manifests/ is what `kubectl apply -f` installs; it must equal
 * the TypeScript constants. On failure run `npm run manifests -w @hcc/crds` and commit the result.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error: plain ESM script without type declarations
import { manifestText, manifestsDir } from '../../scripts/write-manifests.mjs';
import { allCRDs, hyperShiftCRDsForManagementClusters, managementClusterManifestsDir, manifestFileName } from './index.js';

describe('manifests', () => {
  it.each(allCRDs.map((crd) => ({ name: manifestFileName(crd), input: crd })))('$name matches the constant', ({ name, input }) => {
    const text = readFileSync(join(manifestsDir as string, name), 'utf8');
    expect(parse(text)).toEqual(JSON.parse(JSON.stringify(input)));
    expect(text, 'formatting drifted: run npm run manifests -w @hcc/crds').toBe((manifestText as (crd: unknown) => string)(input));
  });

  it.each(hyperShiftCRDsForManagementClusters.map((crd) => ({ name: manifestFileName(crd), input: crd })))('management-cluster/$name matches the constant', ({ name, input }) => {
    const text = readFileSync(join(manifestsDir as string, managementClusterManifestsDir, name), 'utf8');
    expect(text, 'drifted: run npm run manifests -w @hcc/crds').toBe((manifestText as (crd: unknown) => string)(input));
  });

  it('holds no other files', () => {
    expect(readdirSync(manifestsDir as string).sort()).toEqual([...allCRDs.map(manifestFileName), managementClusterManifestsDir].sort());
    expect(readdirSync(join(manifestsDir as string, managementClusterManifestsDir)).sort()).toEqual(hyperShiftCRDsForManagementClusters.map(manifestFileName).sort());
  });
});
