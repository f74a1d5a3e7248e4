/**
 * core/v1 Event: what `kubectl describe` lists under "Events" (it selects them with
 * `involvedObject.*` field selectors). Events may be created by PUT.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/event/strategy.go
 */
import type { KubeObject } from '@hcc/crds';
import { age, baseStrategy, column } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';
import * as field from '../../apierrors/field.js';

interface EventFields {
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  source?: { component?: string; host?: string };
  /** Go's ReportingController. */
  reportingComponent?: string;
  reportingInstance?: string;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
  count?: number;
  series?: { count?: number; lastObservedTime?: string };
}

const ev = (obj: KubeObject) => obj as KubeObject & EventFields;

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
    validate: (obj) => {
      const e = ev(obj);
      const errs: field.FieldError[] = [];
      if (e.involvedObject?.namespace && e.involvedObject.namespace !== obj.metadata.namespace) {
        errs.push(field.invalid('involvedObject.namespace', e.involvedObject.namespace, 'does not match event.namespace'));
      }
      return errs;
    },
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
