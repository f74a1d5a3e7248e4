/**
 * Test-only: loads the real-world HyperShift manifests (see /work/shared/inputs/README.md) as parsed
 * documents. Not part of the build (tsconfig excludes src/testing).
 *
 * Where: `$HCC_INPUTS_DIR`, else `<repo>/testdata/hypershift`, else `<repo>/../shared/inputs/hypershift`,
 * else `/work/shared/inputs/hypershift`.
 * `inputsDir` is undefined when none exists, so suites can skip instead of failing on a bare checkout.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The directory holding the input files, or undefined when none is reachable. */
export const inputsDir: string | undefined = [
  process.env.HCC_INPUTS_DIR,
  join(repoRoot, 'testdata', 'hypershift'),
  join(repoRoot, '..', 'shared', 'inputs', 'hypershift'), // CI: shared/ is copied beside the clone
  '/work/shared/inputs/hypershift',
].find((dir): dir is string => !!dir && existsSync(dir));

/** One parsed document of an input file that has a `kind` (null, empty and kind-less documents are skipped). */
export interface InputDoc {
  file: string;
  index: number;
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  object: Record<string, unknown>;
}

/** Every input file name, sorted. */
export function inputFiles(): string[] {
  if (!inputsDir) return [];
  return readdirSync(inputsDir).filter((f) => /\.ya?ml$/.test(f)).sort();
}

/**
 * Parses one file as a YAML stream (`uniqueKeys: false`, so the duplicate-key PowerVS fixture parses
 * with last-key-wins), flattening `kind: List` wrappers.
 * @throws Error naming the file if a document has YAML errors other than duplicate keys
 */
export function loadInputFile(file: string): InputDoc[] {
  const text = readFileSync(join(inputsDir!, file), 'utf8');
  const out: InputDoc[] = [];
  parseAllDocuments(text, { uniqueKeys: false }).forEach((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`${file} document ${index}: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    const objects = isObject(value) && value.kind === 'List' && Array.isArray(value.items) ? value.items : [value];
    for (const object of objects) {
      if (!isObject(object) || typeof object.kind !== 'string') continue;
      const metadata = isObject(object.metadata) ? object.metadata : {};
      out.push({
        file,
        index,
        apiVersion: String(object.apiVersion ?? ''),
        kind: object.kind,
        name: String(metadata.name ?? ''),
        namespace: String(metadata.namespace ?? ''),
        object,
      });
    }
  });
  return out;
}

/** Every document of every input file. */
export function loadAllInputs(): InputDoc[] {
  return inputFiles().flatMap(loadInputFile);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
