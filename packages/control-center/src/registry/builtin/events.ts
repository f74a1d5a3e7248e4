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
  reportingComponent?: string;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
  count?: number;
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
    tableColumns: () => [
      column('Last Seen', 'string', 'Time of the last occurrence'),
      column('Type', 'string', 'Type of this event (Normal, Warning)'),
      column('Reason', 'string', 'Why the action was taken'),
      column('Object', 'string', 'The object this Event is about'),
      column('Message', 'string', 'A human-readable description of the status of this operation'),
    ],
    tableCells: (obj, now) => {
      const e = ev(obj);
      const io = e.involvedObject ?? {};
      const last = e.lastTimestamp ?? e.eventTime ?? obj.metadata.creationTimestamp;
      return [age(last, now), e.type ?? '', e.reason ?? '', `${(io.kind ?? '').toLowerCase()}/${io.name ?? ''}`, e.message ?? ''];
    },
  }),
};
