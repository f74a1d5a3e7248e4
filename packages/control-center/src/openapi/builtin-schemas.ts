/**
 * OpenAPI schemas of the built-in kinds hcc serves, as kube-apiserver publishes them (fields,
 * types and patch strategies of k8s.io/api; descriptions shortened). Built-in resources carry no
 * schema in the registry: their strategies validate them. These schemas exist for clients:
 * `kubectl explain secret`, and kubectl before 1.27, which validates manifests and computes
 * strategic merge patches for `kubectl apply` from `/openapi/v2`. A kind must list every field
 * users may write, or old kubectl rejects it as unknown. CustomResourceDefinition keeps `spec` and
 * `status` open (kubectl applies CRDs with a JSON merge patch, never a strategic one).
 * @see https://github.com/kubernetes/kubernetes/blob/master/api/openapi-spec/swagger.json
 */
type Schema = Record<string, unknown>;

const str = (description: string): Schema => ({ type: 'string', description });
const int = (description: string, format = 'int32'): Schema => ({ type: 'integer', format, description });
const time = (description: string): Schema => ({ type: 'string', format: 'date-time', description });
const stringMap = (description: string, format?: string): Schema => ({ type: 'object', additionalProperties: { type: 'string', ...(format ? { format } : {}) }, description });
const obj = (description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', description, properties, ...extra });
const open = (description: string): Schema => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });

const objectReference = obj('ObjectReference contains enough information to let you inspect or modify the referred object.', {
  apiVersion: str('API version of the referent.'),
  fieldPath: str('If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.'),
  kind: str('Kind of the referent.'),
  name: str('Name of the referent.'),
  namespace: str('Namespace of the referent.'),
  resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
  uid: str('UID of the referent.'),
});

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
    immutable: { type: 'boolean', description: 'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified).' },
    stringData: stringMap('stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience.'),
    type: str('Used to facilitate programmatic handling of secret data.'),
  }),
  'v1/ConfigMap': obj('ConfigMap holds configuration data for pods to consume.', {
    binaryData: stringMap('BinaryData contains the binary data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.', 'byte'),
    data: stringMap('Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.'),
    immutable: { type: 'boolean', description: 'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified).' },
  }),
  'v1/Event': obj('Event is a report of an event somewhere in the cluster.', {
    action: str('What action was taken/failed regarding to the Regarding object.'),
    count: int('The number of times this event has occurred.'),
    eventTime: { type: 'string', format: 'date-time', description: 'Time when this Event was first observed.' },
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
      lastObservedTime: { type: 'string', format: 'date-time', description: 'Time of the last occurrence observed' },
    }),
    source: obj('The component reporting this event.', { component: str('Component from which the event is generated.'), host: str('Node name on which the event is generated.') }),
    type: str('Type of this event (Normal, Warning), new types could be added in the future'),
  }, { required: ['metadata', 'involvedObject'] }),
  'coordination.k8s.io/v1/Lease': obj('Lease defines a lease concept.', {
    spec: obj('spec contains the specification of the Lease.', {
      acquireTime: { type: 'string', format: 'date-time', description: 'acquireTime is a time when the current lease was acquired.' },
      holderIdentity: str('holderIdentity contains the identity of the holder of a current lease.'),
      leaseDurationSeconds: int('leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it.'),
      leaseTransitions: int('leaseTransitions is the number of transitions of a lease between holders.'),
      preferredHolder: str('PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up.'),
      renewTime: { type: 'string', format: 'date-time', description: 'renewTime is a time when the current holder of a lease has last updated the lease.' },
      strategy: str('Strategy indicates the strategy for picking the leader for coordinated leader election.'),
    }),
  }),
  'apiextensions.k8s.io/v1/CustomResourceDefinition': obj('CustomResourceDefinition represents a resource that should be exposed on the API server.', {
    spec: open('spec describes how the user wants the resources to appear'),
    status: open('status indicates the actual state of the CustomResourceDefinition'),
  }, { required: ['spec'] }),
};

/** The schema of a built-in kind (without apiVersion/kind/metadata), or undefined. */
export function builtinSchema(group: string, version: string, kind: string): Schema | undefined {
  const s = schemas[`${group ? `${group}/` : ''}${version}/${kind}`];
  return s ? structuredClone(s) : undefined;
}
