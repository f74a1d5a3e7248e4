/**
 * Label and field selector filtering of stored objects for list and watch.
 * Field selectors support `metadata.name`, `metadata.namespace` (not on Namespaces and
 * cluster-scoped custom resources) and what the resource's strategy declares selectable; anything
 * else is a 400, as in kube-apiserver.
 */
import type { KubeObject } from '@hcc/crds';
import { parseSelector, parseFieldSelector, matchesFields, type Selector } from '@hcc/client';
import * as apierrors from '../apierrors/status.js';
import type { ResourceInfo } from '../registry/types.js';
import { firstQueryValue } from '../pipeline/list-options.js';

/** A compiled filter; `matches` says whether an object is selected. */
export interface ObjectFilter {
  empty: boolean;
  matches(obj: KubeObject): boolean;
}

/**
 * Compiles the labelSelector and fieldSelector query parameters (a repeated parameter counts
 * by its first value, as upstream's parameter codec reads it).
 * @throws StatusError 400 on syntax errors or unsupported field labels
 */
export function compileFilter(info: ResourceInfo, labelSelectorParam: unknown, fieldSelectorParam: unknown): ObjectFilter {
  const labelSelector = firstQueryValue(labelSelectorParam);
  const fieldSelector = firstQueryValue(fieldSelectorParam);
  let labels: Selector | undefined;
  if (labelSelector.trim() !== '') {
    try {
      labels = parseSelector(labelSelector);
    } catch (e) {
      // The parser's message is labels.Parse's (a requirement's error already starts "unable to parse requirement: ").
      throw apierrors.badRequest((e as Error).message);
    }
  }
  let fields: ReturnType<typeof parseFieldSelector> | undefined;
  if (fieldSelector.trim() !== '') {
    try {
      fields = parseFieldSelector(fieldSelector);
    } catch (e) {
      throw apierrors.badRequest(`invalid field selector: ${(e as Error).message}`);
    }
  }
  if (fields) {
    // Reject unsupported field labels up front, as kube-apiserver does.
    const probe: KubeObject = { metadata: { name: '', namespace: '' } };
    // metadata.namespace is no field of a cluster-scoped custom resource (crConverter) or of a
    // Namespace (its own conversion func); other kinds take it through the default conversion.
    const noNamespace = (info.custom && !info.namespaced) || (info.group === '' && info.resource === 'namespaces');
    const supported = new Set(['metadata.name', ...(noNamespace ? [] : ['metadata.namespace']), ...Object.keys(info.strategy.selectableFields(probe))]);
    for (const r of fields) {
      if (!supported.has(r.field)) {
        throw apierrors.badRequest(`field label not supported: ${r.field}`);
      }
    }
  }
  if (!labels && !fields) return { empty: true, matches: () => true };
  return {
    empty: false,
    matches(obj: KubeObject): boolean {
      if (labels && !labels.matches(obj.metadata.labels ?? {})) return false;
      if (fields) {
        let extra: Record<string, string> | undefined;
        const get = (path: string): string | undefined => {
          if (path === 'metadata.name') return obj.metadata.name ?? '';
          if (path === 'metadata.namespace') return obj.metadata.namespace ?? '';
          extra ??= info.strategy.selectableFields(obj);
          return extra[path];
        };
        if (!matchesFields(fields, get)) return false;
      }
      return true;
    },
  };
}
