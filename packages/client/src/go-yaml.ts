/**
 * YAML as Kubernetes' Go code reads it: sigs.k8s.io/yaml converts YAML to JSON with go-yaml v2,
 * which reads YAML 1.1 plain scalars (kube-apiserver for YAML request bodies, client-go for
 * kubeconfig files, kube-scheduler for its configuration, kubectl before it sends a manifest).
 */
import YAML from 'yaml';

/** YAML 1.1 tags go-yaml v2 does not resolve into a plain value: their nodes read as untagged. */
const goYAMLUnresolved = new Set(['tag:yaml.org,2002:omap', 'tag:yaml.org,2002:pairs', 'tag:yaml.org,2002:set', 'tag:yaml.org,2002:timestamp', 'tag:yaml.org,2002:binary']);

/** `!!binary`: go-yaml v2 decodes the base64 into a Go string, which JSON then writes as UTF-8 text. */
const goYAMLBinary: YAML.ScalarTag = {
  tag: 'tag:yaml.org,2002:binary',
  identify: () => false,
  resolve(src, onError) {
    const b64 = src.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) onError('!!binary value contains invalid base64 data');
    return Buffer.from(b64, 'base64').toString('utf8');
  },
};

/**
 * `0o17`, `0O17`, `0X1F`, `0B101`: Go's strconv.ParseInt (base 0), which go-yaml v2 resolves
 * integers with, reads these prefixes in either case (YAML 1.1 itself knows only `0x`, `0b` and
 * `0777`). As a tag of the schema it also makes the YAML writer quote such strings.
 */
const goYAMLRadix: YAML.ScalarTag = {
  tag: 'tag:yaml.org,2002:int',
  default: true,
  identify: () => false,
  test: /^[-+]?0(?:[oO][0-7_]+|[xX][0-9a-fA-F_]+|[bB][01_]+)$/,
  resolve(src) {
    const sign = src.startsWith('-') ? -1 : 1;
    const body = src.replace(/^[-+]/, '').replace(/_/g, '');
    const radix = { o: 8, x: 16, b: 2 }[body[1]!.toLowerCase() as 'o' | 'x' | 'b'];
    return sign * parseInt(body.slice(2), radix);
  },
};

/**
 * How YAML is read and written here. Read: plain scalars as kube-apiserver reads a YAML body
 * (sigs.k8s.io/yaml's YAMLToJSON, go-yaml v2, YAML 1.1): `yes`/`no`/`on`/`off`/`y`/`n` are booleans, `0777` is octal,
 * `1_000` is 1000, `<<` merges; but timestamps stay strings (go-yaml v2 keeps them strings "for
 * backward compatibility" when decoding into interface{}), sexagesimal `1:20` is a string,
 * `!!set`/`!!omap`/`!!pairs` read as the mapping or sequence they are written as, and `!!binary`
 * is its decoded text. kubectl converts YAML to JSON with the same library before it sends it.
 * Written (`YAML.stringify(value, goYAMLOptions)`): every string such a reader would take as
 * something else (`"yes"`, `"0777"`, `"0o17"`) is quoted, so what hcc writes reads back the same.
 * @see https://pkg.go.dev/sigs.k8s.io/yaml#YAMLToJSON
 */
export const goYAMLOptions: YAML.DocumentOptions & YAML.ParseOptions & YAML.SchemaOptions = {
  version: '1.1',
  uniqueKeys: false,
  merge: true,
  customTags: (tags) => [goYAMLRadix, goYAMLBinary, ...tags.filter((t) => typeof t !== 'string' && !goYAMLUnresolved.has(t.tag) && t.format !== 'TIME')],
};
