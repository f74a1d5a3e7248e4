/**
 * The OpenAPI v3 schema of a CRD version (`spec.versions[].schema.openAPIV3Schema`), as JSON:
 * apiextensions.k8s.io/v1 JSONSchemaProps. Every field upstream accepts is typed, so the validator,
 * pruner and defaulter can read any CRD a management cluster serves (the CRD puller copies them).
 *
 * A *structural* schema (what v1 CRDs require) declares `type` on every node except nodes with
 * `x-kubernetes-int-or-string` or `x-kubernetes-preserve-unknown-fields`, never uses `$ref`, and keeps
 * `properties`/`items`/`additionalProperties` out of `allOf`/`anyOf`/`oneOf`/`not`; pruning and
 * defaulting only look at that structural part, validation looks at everything.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apis/apiextensions/v1/types_jsonschema.go
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema
 */

import type { ValidationRule } from '@hcc/crds';

/** The JSON types a schema node may declare. */
export type JSONSchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

/** One CEL rule of `x-kubernetes-validations` (the one shape, from @hcc/crds; cel.ts evaluates them). */
export type { ValidationRule };

/** externalDocs of a schema node. */
export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

/** apiextensions/v1 JSONSchemaProps. Numbers are JSON numbers; `default`, `enum` and `example` are free JSON. */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: JSONSchemaType | string;
  /** e.g. `date-time`, `int32`, `byte`; formats upstream does not know are ignored. */
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  /** In characters (Go runes), not bytes. */
  maxLength?: number;
  minLength?: number;
  /** An RE2 regular expression (as upstream, which uses Go's `regexp`), unanchored; see cel-regex.ts. */
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** A schema for every element; the tuple form (array of schemas) is accepted but not structural. */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  /** For maps: a schema for every value, or a boolean (`false` is not structural). */
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: ExternalDocumentation;
  example?: unknown;
  /** Allows `null` as a value (otherwise null fails the type check, or is dropped when it has no default). */
  nullable?: boolean;
  /** Keep fields not declared in `properties` at this node (and below, unless a child says otherwise). */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** The node is a complete Kubernetes object: `apiVersion`, `kind`, `metadata` are kept and checked. */
  'x-kubernetes-embedded-resource'?: boolean;
  /** Integer or string (like `intstr.IntOrString`); no `type` needed. */
  'x-kubernetes-int-or-string'?: boolean;
  /** For `x-kubernetes-list-type: map`: the fields identifying an element. */
  'x-kubernetes-list-map-keys'?: string[];
  /** `atomic` (default), `set` (unique scalars) or `map` (unique by `x-kubernetes-list-map-keys`). */
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map' | string;
  'x-kubernetes-map-type'?: 'granular' | 'atomic' | string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** How unknown fields in a request body are treated (the `fieldValidation` query parameter). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
