/**
 * TypeScript shapes of apiextensions.k8s.io/v1 CustomResourceDefinition objects, as JSON. Only the
 * fields hcc writes are typed. Mirrors k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go
 * and types_jsonschema.go.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apis/apiextensions/v1/types_jsonschema.go
 */

/** The JSON types a structural schema node may declare. */
export type JSONSchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

/**
 * One CEL rule (`x-kubernetes-validations[]`). `self` is the value at the node; `oldSelf` (transition
 * rule) the previous value on update.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules
 */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/**
 * A node of an OpenAPI v3 schema as CRDs accept it (apiextensions/v1 JSONSchemaProps). A *structural*
 * schema gives every node a `type`, except nodes with `x-kubernetes-int-or-string: true` or
 * `x-kubernetes-preserve-unknown-fields: true`, and never uses `$ref`.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema
 */
export interface JSONSchemaProps {
  type?: JSONSchemaType;
  description?: string;
  format?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  anyOf?: JSONSchemaProps[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'granular' | 'atomic';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** `additionalPrinterColumns[]`: one `kubectl get` column. `jsonPath` is relative to the object root. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  /** 0 shows in the default table; larger values only with `-o wide`. */
  priority?: number;
}

/** One served version of a CRD. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition. `metadata.name` is `<plural>.<group>`. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: CustomResourceDefinitionVersion[];
  };
}
