/**
 * Converts objects to `meta.k8s.io` Tables using the resource's strategy columns, as
 * kube-apiserver's TableConvertor does for `kubectl get`.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go (Table)
 */
import type { KubeObject } from '@hcc/crds';
import type { ResourceInfo } from '../registry/types.js';

/** includeObject: what each row carries besides its cells. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** A row's embedded object as includeObject asks (undefined for None). */
export function rowObject(obj: KubeObject, include: IncludeObject, version: string): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

/** Builds a Table of objects. */
export function toTable(
  info: ResourceInfo,
  objs: KubeObject[],
  opts: { version: string; include: IncludeObject; now: Date; listMeta?: Record<string, unknown>; withColumns?: boolean },
): Record<string, unknown> {
  const s = info.strategy;
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${opts.version}`,
    metadata: opts.listMeta ?? {},
    columnDefinitions: opts.withColumns === false ? [] : s.tableColumns(),
    rows: objs.map((o) => {
      const row: Record<string, unknown> = { cells: s.tableCells(o, opts.now) };
      const ro = rowObject(o, opts.include, opts.version);
      if (ro !== undefined) row.object = ro;
      return row;
    }),
  };
}

/** Parses the includeObject query parameter (default Metadata). */
export function parseIncludeObject(v: unknown): IncludeObject {
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}
