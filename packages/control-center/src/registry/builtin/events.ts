/**
 * core/v1 Event: what `kubectl describe` lists under "Events" (it selects them with
 * `involvedObject.*` field selectors). Events may be created by PUT.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/event/strategy.go
 */
import type { KubeObject } from '@hcc/crds';
import { age, baseStrategy, column } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';
import * as field from '../../apierrors/field.js';
import { isQualifiedName } from '@hcc/client';

interface EventFields {
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  source?: { component?: string; host?: string };
  /** Go's ReportingController. */
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
  count?: number;
  series?: { count?: number; lastObservedTime?: string };
}

const ev = (obj: KubeObject) => obj as KubeObject & EventFields;

/** Upstream's length limits of an events.k8s.io-style Event's fields, in characters. */
const ReportingInstanceLengthLimit = 128;
const ActionLengthLimit = 128;
const ReasonLengthLimit = 128;
const NoteLengthLimit = 1024;

/**
 * Upstream's legacyValidateEvent, which core/v1 applies to every create and update: an Event
 * without `eventTime` (core/v1 style) is in its involved object's namespace, or in `default` for
 * a cluster-scoped one; one with `eventTime` (events.k8s.io style) names its `reportingComponent`,
 * `reportingInstance`, `action` and `reason` within their length limits, and may be in `default`
 * or `kube-system` for a cluster-scoped object.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/events.go
 */
export function validateEvent(obj: KubeObject): field.FieldError[] {
  const e = ev(obj);
  const ns = obj.metadata.namespace ?? '';
  const involvedNs = e.involvedObject?.namespace ?? '';
  const errs: field.FieldError[] = [];
  const mismatch = () => errs.push(field.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  if (!e.eventTime) {
    if (involvedNs ? ns !== involvedNs : ns !== '' && ns !== 'default') mismatch();
    return errs;
  }
  if (!involvedNs && ns !== 'default' && ns !== 'kube-system') mismatch();
  const component = e.reportingComponent ?? '';
  if (!component) errs.push(field.required('reportingComponent', ''));
  for (const msg of isQualifiedName(component)) errs.push(field.invalid('reportingComponent', component, msg));
  const limited = (path: string, value: string | undefined, limit: number, required: boolean) => {
    if (required && !value) errs.push(field.required(path, ''));
    if ((value ?? '').length > limit) errs.push(field.invalid(path, '', `can have at most ${limit} characters`));
  };
  limited('reportingInstance', e.reportingInstance, ReportingInstanceLengthLimit, true);
  limited('action', e.action, ActionLengthLimit, true);
  limited('reason', e.reason, ReasonLengthLimit, true);
  limited('message', e.message, NoteLengthLimit, false);
  return errs;
}

/**
 * The registry entry of core/v1 Events (rules above): namespaced, no status subresource, created by PUT too; an update
 * is validated as a create; `involvedObject.*`, `reason`, `reportingComponent`, `source` and `type` are field-selectable.
 */
export const events: ResourceInfo = {
  group: '',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  listKind: 'EventList',
  singular: 'event',
  shortNames: ['ev'],
  categories: [],
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: { status: false },
  storageVersion: 'v1',
  custom: false,
  strategy: baseStrategy({
    allowCreateOnUpdate: true,
    // core/v1 checks an update as a create (ValidateEventUpdate: nothing is immutable there).
    validate: (obj) => validateEvent(obj),
    validateUpdate: (obj) => validateEvent(obj),
    selectableFields: (obj) => {
      const e = ev(obj);
      const io = e.involvedObject ?? {};
      return {
        'involvedObject.kind': io.kind ?? '',
        'involvedObject.namespace': io.namespace ?? '',
        'involvedObject.name': io.name ?? '',
        'involvedObject.uid': io.uid ?? '',
        'involvedObject.apiVersion': io.apiVersion ?? '',
        'involvedObject.resourceVersion': io.resourceVersion ?? '',
        'involvedObject.fieldPath': io.fieldPath ?? '',
        reason: e.reason ?? '',
        reportingComponent: e.reportingComponent ?? '',
        source: e.source?.component ?? '',
        type: e.type ?? '',
      };
    },
    // kube-apiserver's Event table (printers.go eventColumnDefinitions): the columns at priority 1
    // are the ones `kubectl get events -o wide` adds.
    tableColumns: () => [
      column('Last Seen', 'string', 'Time of the last occurrence'),
      column('Type', 'string', 'Type of this event (Normal, Warning)'),
      column('Reason', 'string', 'Why the action was taken'),
      column('Object', 'string', 'The object this Event is about'),
      column('Subobject', 'string', 'The part of the object this Event is about (involvedObject.fieldPath)', 1),
      column('Source', 'string', 'The component (and host) that reported this Event', 1),
      column('Message', 'string', 'A human-readable description of the status of this operation'),
      column('First Seen', 'string', 'Time of the first occurrence', 1),
      column('Count', 'string', 'How many times this Event has occurred', 1),
      column('Name', 'string', 'Name of the Event object', 1, 'name'),
    ],
    tableCells: (obj, now) => eventCells(ev(obj), obj.metadata.name ?? '', now),
  }),
};

/** The first non-empty string, else ''. */
const firstNonEmpty = (...xs: (string | undefined)[]): string => xs.find((x) => x) ?? '';

/**
 * One row of the Event table, as kube-apiserver's printEvent fills it (always wide on the server):
 * first seen is `firstTimestamp`, else `eventTime`; last seen is `lastTimestamp`, else first seen,
 * or the series' `lastObservedTime`; each `<unknown>` when absent. Count is the series' count, else
 * `count`, or 1 for a singleton Event that sets none; the object is `kind/name` (kind lowercased, the
 * kind alone without a name); the source is `component, host` (falling back to
 * reportingComponent/reportingInstance); the message is trimmed.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/printers/internalversion/printers.go (printEvent)
 */
function eventCells(e: KubeObject & EventFields, name: string, now: Date): unknown[] {
  const first = e.firstTimestamp ? age(e.firstTimestamp, now) : age(e.eventTime, now);
  let last = e.lastTimestamp ? age(e.lastTimestamp, now) : first;
  let count = e.count ?? 0;
  if (e.series) {
    last = age(e.series.lastObservedTime, now);
    count = e.series.count ?? 0;
  } else if (count === 0) count = 1;
  const io = e.involvedObject ?? {};
  const kind = (io.kind ?? '').toLowerCase();
  const target = io.name ? `${kind}/${io.name}` : kind;
  const component = firstNonEmpty(e.source?.component, e.reportingComponent);
  const instance = firstNonEmpty(e.source?.host, e.reportingInstance);
  const source = instance ? `${component}, ${instance}` : component;
  return [last, e.type ?? '', e.reason ?? '', target, io.fieldPath ?? '', source, (e.message ?? '').trim(), first, count, name];
}
