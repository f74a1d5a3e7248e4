/**
 * Read-only helpers over CRD schemas (apiextensions/v1 JSONSchemaProps): visit every node, look a field
 * up by path, list structural-schema violations. The validator itself lives in the control center.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema
 */
import type { JSONSchemaProps } from './crds/crd-types.js';

/**
 * Calls `visit` for `schema` and every node below it, depth first. `path` names each step:
 * a property name, `[]` for array items, `{}` for additionalProperties, `anyOf[i]` for alternatives.
 */
export function walkSchema(schema: JSONSchemaProps, visit: (node: JSONSchemaProps, path: string[]) => void, path: string[] = []): void {
  visit(schema, path);
  for (const [name, child] of Object.entries(schema.properties ?? {})) walkSchema(child, visit, [...path, name]);
  if (schema.items) walkSchema(schema.items, visit, [...path, '[]']);
  if (schema.additionalProperties) walkSchema(schema.additionalProperties, visit, [...path, '{}']);
  schema.anyOf?.forEach((alt, i) => walkSchema(alt, visit, [...path, `anyOf[${i}]`]));
}

/**
 * The schema node that declares the field at `fieldPath` (object keys; array indices are skipped),
 * or `undefined` if no node declares it. A field under an `x-kubernetes-preserve-unknown-fields` node
 * without its own declaration is *kept* but not *declared*: this returns `undefined` for it.
 * @example schemaAt(hostedClusterCRD.spec.versions[0].schema.openAPIV3Schema, ['spec', 'platform', 'kubevirt'])
 */
export function schemaAt(root: JSONSchemaProps, fieldPath: readonly (string | number)[]): JSONSchemaProps | undefined {
  let node: JSONSchemaProps | undefined = root;
  for (const step of fieldPath) {
    if (!node) return undefined;
    if (typeof step === 'number' || node.type === 'array') {
      node = node.items;
      if (typeof step === 'number') continue;
    }
    if (!node) return undefined;
    node = node.properties?.[step] ?? node.additionalProperties;
  }
  return node;
}

/**
 * Paths (dot-joined, as {@link walkSchema} names them) of nodes that break the structural-schema rules
 * this package relies on: a node without `type` (unless `x-kubernetes-int-or-string` or
 * `x-kubernetes-preserve-unknown-fields`), `$ref`, or both `properties` and `additionalProperties`.
 * Empty for a structural schema. Types inside `anyOf` of an int-or-string node are allowed.
 */
export function structuralViolations(schema: JSONSchemaProps): string[] {
  const out: string[] = [];
  walkSchema(schema, (node, path) => {
    const where = path.join('.') || '<root>';
    const isAlternative = path.length > 0 && path[path.length - 1]!.startsWith('anyOf[');
    if ('$ref' in node) out.push(`${where}: $ref is not allowed`);
    if (node.properties && node.additionalProperties) out.push(`${where}: both properties and additionalProperties`);
    if (!isAlternative && !node.type && !node['x-kubernetes-int-or-string'] && !node['x-kubernetes-preserve-unknown-fields']) {
      out.push(`${where}: no type`);
    }
    if (node.anyOf && !node['x-kubernetes-int-or-string']) out.push(`${where}: anyOf outside int-or-string`);
  });
  return out;
}
