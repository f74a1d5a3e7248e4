/**
 * OpenAPI schemas of the built-in kinds hcc serves, as kube-apiserver publishes them (fields,
 * types and patch strategies of k8s.io/api; descriptions shortened). Built-in resources carry no
 * schema in the registry: their strategies validate them. These schemas exist for clients:
 * `kubectl explain secret`, and kubectl before 1.27, which validates manifests and computes
 * strategic merge patches for `kubectl apply` from `/openapi/v2`. A kind must list every field
 * users may write, or old kubectl rejects it as unknown — and the server drops it (registry/builtin/decode.ts
 * decodes request bodies with these schemas). A CustomResourceDefinition's `openAPIV3Schema` and conversion
 * `webhook` stay open (kubectl applies CRDs with a JSON merge patch, never a strategic one).
 * @see https://github.com/kubernetes/kubernetes/blob/master/api/openapi-spec/swagger.json
 */
type Schema = Record<string, unknown>;

const str = (description: string): Schema => ({ type: 'string', description });
const int = (description: string, format = 'int32'): Schema => ({ type: 'integer', format, description });
const time = (description: string): Schema => ({ type: 'string', format: 'date-time', description });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const stringMap = (description: string, format?: string): Schema => ({ type: 'object', additionalProperties: { type: 'string', ...(format ? { format } : {}) }, description });
const obj = (description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', description, properties, ...extra });
const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string' }, description });
const open = (description: string): Schema => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });

/** CustomResourceDefinitionNames: a CRD's `spec.names` and `status.acceptedNames`. */
const crdNames = (description: string): Schema =>
  obj(description, {
    categories: strings('categories is a list of grouped resources this custom resource belongs to (e.g. \'all\').'),
    kind: str('kind is the serialized kind of the resource.'),
    listKind: str('listKind is the serialized kind of the list for this resource.'),
    plural: str('plural is the plural name of the resource to serve.'),
    shortNames: strings('shortNames are short names for the resource, exposed in API discovery documents.'),
    singular: str('singular is the singular name of the resource.'),
  });

/** LabelSelectorAttributes / FieldSelectorAttributes of authorization.k8s.io/v1 (the same shape). */
const selectorAttributes = (description: string): Schema =>
  obj(description, {
    rawSelector: str('rawSelector is the serialization of a selector that would be included in a query parameter.'),
    requirements: {
      type: 'array',
      description: 'requirements is the parsed interpretation of a selector.',
      items: obj('A selector requirement: a key, an operator and values.', { key: str('key is the key that the selector applies to.'), operator: str('operator represents a key\'s relationship to a set of values.'), values: strings('values is an array of string values.') }, { required: ['key', 'operator'] }),
    },
  });

const objectReference = obj('ObjectReference contains enough information to let you inspect or modify the referred object.', {
  apiVersion: str('API version of the referent.'),
  fieldPath: str('If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.'),
  kind: str('Kind of the referent.'),
  name: str('Name of the referent.'),
  namespace: str('Namespace of the referent.'),
  resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
  uid: str('UID of the referent.'),
});

/** ObjectMeta as kube-apiserver publishes it (io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta): every field a client may send. */
export const objectMetaSchema: Schema = {
  description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  type: 'object',
  properties: {
    name: str('Name must be unique within a namespace.'),
    generateName: str('GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
    namespace: str('Namespace defines the space within which each name must be unique.'),
    uid: str('UID is the unique in time and space value for this object.'),
    resourceVersion: str('An opaque value that represents the internal version of this object.'),
    generation: int('A sequence number representing a specific generation of the desired state.', 'int64'),
    creationTimestamp: time('CreationTimestamp is a timestamp representing the server time when this object was created.'),
    deletionTimestamp: time('DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.'),
    deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
    labels: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Map of string keys and values that can be used to organize and categorize (scope and select) objects.' },
    annotations: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Annotations is an unstructured key value map stored with a resource.' },
    finalizers: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge', description: 'Must be empty before the object is deleted from the registry.' },
    ownerReferences: {
      type: 'array',
      description: 'List of objects depended by this object.',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
      items: {
        type: 'object',
        description: 'OwnerReference contains enough information to let you identify an owning object.',
        required: ['apiVersion', 'kind', 'name', 'uid'],
        properties: {
          apiVersion: str('API version of the referent.'),
          blockOwnerDeletion: bool('If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.'),
          controller: bool('If true, this reference points to the managing controller.'),
          kind: str('Kind of the referent.'),
          name: str('Name of the referent.'),
          uid: str('UID of the referent.'),
        },
        'x-kubernetes-map-type': 'atomic',
      },
    },
    managedFields: {
      type: 'array',
      description: 'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
      'x-kubernetes-list-type': 'atomic',
      items: {
        type: 'object',
        description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
        properties: {
          apiVersion: { type: 'string' },
          fieldsType: { type: 'string' },
          fieldsV1: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          manager: { type: 'string' },
          operation: { type: 'string' },
          subresource: { type: 'string' },
          time: { type: 'string', format: 'date-time' },
        },
      },
    },
    selfLink: { type: 'string' },
  },
};

const schemas: Record<string, Schema> = {
  'v1/Namespace': obj('Namespace provides a scope for Names. Use of multiple namespaces is optional.', {
    spec: obj('Spec defines the behavior of the Namespace.', {
      finalizers: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic', description: 'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.' },
    }),
    status: obj('Status describes the current status of a Namespace.', {
      phase: { type: 'string', enum: ['Active', 'Terminating'], description: 'Phase is the current lifecycle phase of the namespace.' },
      conditions: {
        type: 'array',
        description: 'Represents the latest available observations of a namespace\'s current state.',
        'x-kubernetes-list-map-keys': ['type'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'type',
        'x-kubernetes-patch-strategy': 'merge',
        items: obj('NamespaceCondition contains details about state of namespace.', {
          lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
          message: str('Human-readable message indicating details about last transition.'),
          reason: str('Unique, one-word, CamelCase reason for the condition\'s last transition.'),
          status: str('Status of the condition, one of True, False, Unknown.'),
          type: str('Type of namespace controller condition.'),
        }, { required: ['type', 'status'] }),
      },
    }),
  }),
  'v1/Secret': obj('Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.', {
    data: stringMap('Data contains the secret data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. The serialized form of the secret data is a base64 encoded string.', 'byte'),
    immutable: bool('Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified).'),
    stringData: stringMap('stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience.'),
    type: str('Used to facilitate programmatic handling of secret data.'),
  }),
  'v1/ConfigMap': obj('ConfigMap holds configuration data for pods to consume.', {
    binaryData: stringMap('BinaryData contains the binary data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.', 'byte'),
    data: stringMap('Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.'),
    immutable: bool('Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified).'),
  }),
  'v1/Event': obj('Event is a report of an event somewhere in the cluster.', {
    action: str('What action was taken/failed regarding to the Regarding object.'),
    count: int('The number of times this event has occurred.'),
    eventTime: time('Time when this Event was first observed.'),
    firstTimestamp: time('The time at which the event was first recorded.'),
    involvedObject: { ...objectReference, description: 'The object that this event is about.' },
    lastTimestamp: time('The time at which the most recent occurrence of this event was recorded.'),
    message: str('A human-readable description of the status of this operation.'),
    reason: str('This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
    related: { ...objectReference, description: 'Optional secondary object for more complex actions.' },
    reportingComponent: str('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.'),
    reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
    series: obj('Data about the Event series this event represents or nil if it\'s a singleton Event.', {
      count: int('Number of occurrences in this series up to the last heartbeat time'),
      lastObservedTime: time('Time of the last occurrence observed'),
    }),
    source: obj('The component reporting this event.', { component: str('Component from which the event is generated.'), host: str('Node name on which the event is generated.') }),
    type: str('Type of this event (Normal, Warning), new types could be added in the future'),
  }, { required: ['metadata', 'involvedObject'] }),
  'coordination.k8s.io/v1/Lease': obj('Lease defines a lease concept.', {
    spec: obj('spec contains the specification of the Lease.', {
      acquireTime: time('acquireTime is a time when the current lease was acquired.'),
      holderIdentity: str('holderIdentity contains the identity of the holder of a current lease.'),
      leaseDurationSeconds: int('leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it.'),
      leaseTransitions: int('leaseTransitions is the number of transitions of a lease between holders.'),
      preferredHolder: str('PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up.'),
      renewTime: time('renewTime is a time when the current holder of a lease has last updated the lease.'),
      strategy: str('Strategy indicates the strategy for picking the leader for coordinated leader election.'),
    }),
  }),
  'authorization.k8s.io/v1/SelfSubjectAccessReview': obj('SelfSubjectAccessReview checks whether or the current user can perform an action.', {
    spec: obj('Spec holds information about the request being evaluated. user and groups must be empty', {
      resourceAttributes: obj('ResourceAuthorizationAttributes describes information for a resource access request', {
        namespace: str('Namespace is the namespace of the action being requested.'),
        verb: str('Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete, proxy.  "*" means all.'),
        group: str('Group is the API Group of the Resource.  "*" means all.'),
        version: str('Version is the API Version of the Resource.  "*" means all.'),
        resource: str('Resource is one of the existing resource types.  "*" means all.'),
        subresource: str('Subresource is one of the existing resource types.  "" means none.'),
        name: str('Name is the name of the resource being requested for a "get" or deleted for a "delete". "" (empty) means all.'),
        fieldSelector: selectorAttributes('fieldSelector describes the limitation on access based on field.  It can only limit access, not broaden it.'),
        labelSelector: selectorAttributes('labelSelector describes the limitation on access based on labels.  It can only limit access, not broaden it.'),
      }),
      nonResourceAttributes: obj('NonResourceAttributes describes information for a non-resource access request', {
        path: str('Path is the URL path of the request'),
        verb: str('Verb is the standard HTTP verb'),
      }),
    }),
    status: obj('Status is filled in by the server and indicates whether the request is allowed or not', {
      allowed: bool('Allowed is required. True if the action would be allowed, false otherwise.'),
      denied: bool('Denied is optional. True if the action would be denied, otherwise false.'),
      evaluationError: str('EvaluationError is an indication that some error occurred during the authorization check.'),
      reason: str('Reason is optional.  It indicates why a request was allowed or denied.'),
    }, { required: ['allowed'] }),
  }, { required: ['spec'] }),
  'authorization.k8s.io/v1/SelfSubjectRulesReview': obj('SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace.', {
    spec: obj('Spec holds information about the request being evaluated.', {
      namespace: str('Namespace to evaluate rules for. Required.'),
    }),
    status: obj('Status is filled in by the server and indicates the set of actions a user can perform.', {
      evaluationError: str('EvaluationError can appear in combination with Rules.'),
      incomplete: bool('Incomplete is true when the rules returned by this call are incomplete.'),
      nonResourceRules: {
        type: 'array',
        description: 'NonResourceRules is the list of actions the subject is allowed to perform on non-resources.',
        items: obj('NonResourceRule holds information that describes a rule for the non-resource', { nonResourceURLs: strings('NonResourceURLs is a set of partial urls that a user should have access to.'), verbs: strings('Verb is a list of kubernetes non-resource API verbs, like: get, post, put, delete, patch, head, options.  "*" means all.') }, { required: ['verbs'] }),
      },
      resourceRules: {
        type: 'array',
        description: 'ResourceRules is the list of actions the subject is allowed to perform on resources.',
        items: obj('ResourceRule is the list of actions the subject is allowed to perform on resources.', {
          apiGroups: strings('APIGroups is the name of the APIGroup that contains the resources.  "*" means all.'),
          resourceNames: strings('ResourceNames is an optional white list of names that the rule applies to.  "*" means all.'),
          resources: strings('Resources is a list of resources this rule applies to.  "*" means all in the specified apiGroups.'),
          verbs: strings('Verb is a list of kubernetes resource API verbs, like: get, list, watch, create, update, delete, proxy.  "*" means all.'),
        }, { required: ['verbs'] }),
      },
    }, { required: ['resourceRules', 'nonResourceRules', 'incomplete'] }),
  }, { required: ['spec'] }),
  'authentication.k8s.io/v1/SelfSubjectReview': obj('SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.', {
    status: obj('Status is filled in by the server with the user attributes.', {
      userInfo: obj('User attributes of the user making this request.', {
        extra: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'Any additional information provided by the authenticator.' },
        groups: strings('The names of groups this user is a part of.'),
        uid: str('A unique value that identifies this user across time.'),
        username: str('The name that uniquely identifies this user among all active users.'),
      }),
    }),
  }),
  'apiextensions.k8s.io/v1/CustomResourceDefinition': obj('CustomResourceDefinition represents a resource that should be exposed on the API server.', {
    spec: obj('spec describes how the user wants the resources to appear', {
      group: str('group is the API group of the defined custom resource.'),
      names: crdNames('names specify the resource and kind names for the custom resource.'),
      scope: str('scope indicates whether the defined custom resource is cluster- or namespace-scoped.'),
      versions: {
        type: 'array',
        description: 'versions is the list of all API versions of the defined custom resource.',
        items: obj('CustomResourceDefinitionVersion describes a version for CRD.', {
          additionalPrinterColumns: {
            type: 'array',
            description: 'additionalPrinterColumns specifies additional columns returned in Table output.',
            items: obj('CustomResourceColumnDefinition specifies a column for server side printing.', {
              description: str('description is a human readable description of this column.'),
              format: str('format is an optional OpenAPI type definition for this column.'),
              jsonPath: str('jsonPath is a simple JSON path evaluated against each custom resource to produce the value for this column.'),
              name: str('name is a human readable name for the column.'),
              priority: int('priority is an integer defining the relative importance of this column compared to others.'),
              type: str('type is an OpenAPI type definition for this column.'),
            }),
          },
          deprecated: bool('deprecated indicates this version of the custom resource API is deprecated.'),
          deprecationWarning: str('deprecationWarning overrides the default warning returned to API clients.'),
          name: str('name is the version name, e.g. \u201cv1\u201d, \u201cv2beta1\u201d, etc.'),
          schema: obj('schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.', {
            openAPIV3Schema: open('openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.'),
          }),
          selectableFields: {
            type: 'array',
            description: 'selectableFields specifies paths to fields that may be used as field selectors.',
            items: obj('SelectableField specifies the JSON path of a field that may be used with field selectors.', { jsonPath: str('jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value.') }),
          },
          served: bool('served is a flag enabling/disabling this version from being served via REST APIs'),
          storage: bool('storage indicates this version should be used when persisting custom resources to storage.'),
          subresources: obj('subresources specify what subresources this version of the defined custom resource have.', {
            scale: obj('scale indicates the custom resource should serve a `/scale` subresource.', {
              labelSelectorPath: str('labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`.'),
              specReplicasPath: str('specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`.'),
              statusReplicasPath: str('statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`.'),
            }),
            status: open('status indicates the custom resource should serve a `/status` subresource.'),
          }),
        }),
      },
      conversion: obj('conversion defines conversion settings for the CRD.', {
        strategy: str('strategy specifies how custom resources are converted between versions. Allowed values are: - `"None"` - `"Webhook"`.'),
        webhook: open('webhook describes how to call the conversion webhook. Required when `strategy` is set to `"Webhook"`.'),
      }),
      preserveUnknownFields: bool('preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage.'),
    }),
    status: obj('status indicates the actual state of the CustomResourceDefinition', {
      acceptedNames: crdNames('acceptedNames are the names that are actually being used to serve discovery.'),
      conditions: {
        type: 'array',
        description: 'conditions indicate state for particular aspects of a CustomResourceDefinition',
        items: obj('CustomResourceDefinitionCondition contains details for the current condition of this pod.', {
          lastTransitionTime: time('lastTransitionTime last time the condition transitioned from one status to another.'),
          message: str('message is a human-readable message indicating details about last transition.'),
          reason: str('reason is a unique, one-word, CamelCase reason for the condition\'s last transition.'),
          status: str('status is the status of the condition. Can be True, False, Unknown.'),
          type: str('type is the type of the condition. Types include Established, NamesAccepted and Terminating.'),
        }, { required: ['type', 'status'] }),
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      },
      storedVersions: strings('storedVersions lists all versions of CustomResources that were ever persisted.'),
    }),
  }, { required: ['spec'] }),
};

/** The schema of a built-in kind (without apiVersion/kind/metadata), or undefined. A copy: callers may change it. */
export function builtinSchema(group: string, version: string, kind: string): Schema | undefined {
  const s = sharedBuiltinSchema(group, version, kind);
  return s ? structuredClone(s) : undefined;
}

/**
 * The same schema, shared and never to be changed: the request decoder compiles it once (its
 * compiled walks are cached by schema identity).
 */
export function sharedBuiltinSchema(group: string, version: string, kind: string): Readonly<Schema> | undefined {
  return schemas[`${group ? `${group}/` : ''}${version}/${kind}`];
}
