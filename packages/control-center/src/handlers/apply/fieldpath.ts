/**
 * Field paths and sets of field paths, and their `FieldsV1` wire form, as
 * sigs.k8s.io/structured-merge-diff/v4/fieldpath defines them.
 *
 * A path element (path-element.ts) names one step into an object:
 * - `f:<name>`  a field of a map or struct (`.spec`),
 * - `k:{"name":"x","port":80}`  an item of an associative list by its keys (`[name="x",port=80]`),
 * - `v:"a"`  an item of a set by its value (`[="a"]`),
 * - `i:3`  an item by index (never produced for atomic lists; parsed for completeness).
 *
 * A {@link PathSet} is a tree: *members* are paths in the set, *children* lead to deeper members.
 * Membership of a parent says nothing about its children and vice versa. FieldsV1 encodes that
 * tree as nested JSON objects keyed by path elements, `{}` for a member leaf and `".": {}` for a
 * member that also has children. Sets are treated as immutable once built: operations return new
 * sets and may share unchanged subtrees with their inputs.
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/set.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/serialize.go
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management
 */
import { comparePE, FieldsV1Error, parsePE, peKey, pathString, type Path, type PathElement } from './path-element.js';

export * from './path-element.js';

/** A child of a set: the element leading to it and the subset below it. */
interface Child {
  readonly pe: PathElement;
  readonly set: PathSet;
}

/** A set of field paths (a tree of members and children), after structured-merge-diff's `fieldpath.Set`. */
export class PathSet {
  /** Members at this level, by FieldsV1 key. */
  readonly members = new Map<string, PathElement>();
  /** Subsets below this level, by FieldsV1 key; never empty once built. */
  readonly children = new Map<string, Child>();

  /** Builds a set from paths. */
  static of(...paths: Path[]): PathSet {
    const s = new PathSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (not its parents). The empty path (the whole object) is never a member. */
  insert(p: Path): void {
    if (p.length === 0) return;
    let s: PathSet = this;
    for (let i = 0; i < p.length - 1; i++) s = s.descend(p[i]!);
    const last = p[p.length - 1]!;
    s.members.set(peKey(last), last);
  }

  /** Adds one element as a member (building helper). */
  insertMember(pe: PathElement, key = peKey(pe)): void {
    this.members.set(key, pe);
  }

  /** The subset below `pe`, created if absent (building helper). */
  descend(pe: PathElement, key = peKey(pe)): PathSet {
    let c = this.children.get(key);
    if (!c) {
      c = { pe, set: new PathSet() };
      this.children.set(key, c);
    }
    return c.set;
  }

  /** Whether the path is a member. */
  has(p: Path): boolean {
    if (p.length === 0) return false;
    let s: PathSet | undefined = this;
    for (let i = 0; i < p.length - 1; i++) {
      s = s.children.get(peKey(p[i]!))?.set;
      if (!s) return false;
    }
    return s.members.has(peKey(p[p.length - 1]!));
  }

  /** True when no path is a member. */
  isEmpty(): boolean {
    if (this.members.size) return false;
    for (const c of this.children.values()) if (!c.set.isEmpty()) return false;
    return true;
  }

  /** Number of member paths. */
  size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size();
    return n;
  }

  /** The subset of paths below `pe` (prefix removed), or an empty set. */
  withPrefix(pe: PathElement | string): PathSet {
    return this.children.get(typeof pe === 'string' ? pe : peKey(pe))?.set ?? EMPTY;
  }

  /** Paths in either set. */
  union(o: PathSet): PathSet {
    if (o.isEmptyShallow()) return this;
    if (this.isEmptyShallow()) return o;
    const out = new PathSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, pe] of o.members) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      out.children.set(k, oc ? { pe: c.pe, set: c.set.union(oc.set) } : c);
    }
    for (const [k, c] of o.children) if (!this.children.has(k)) out.children.set(k, c);
    return out;
  }

  /** Paths in both sets. */
  intersection(o: PathSet): PathSet {
    const out = new PathSet();
    for (const [k, pe] of this.members) if (o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (!oc) continue;
      const r = c.set.intersection(oc.set);
      if (!r.isEmpty()) out.children.set(k, { pe: c.pe, set: r });
    }
    return out;
  }

  /** Paths of this set that are not in `o`; a member of `o` does not remove its descendants. */
  difference(o: PathSet): PathSet {
    if (o.isEmptyShallow() || !this.overlaps(o)) return this;
    const out = new PathSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (!oc) {
        out.children.set(k, c);
        continue;
      }
      const r = c.set.difference(oc.set);
      if (!r.isEmpty()) out.children.set(k, { pe: c.pe, set: r });
    }
    return out;
  }

  /** Like difference, but a member of `o` also removes everything below it. */
  recursiveDifference(o: PathSet): PathSet {
    if (o.isEmptyShallow() || !this.overlaps(o)) return this;
    const out = new PathSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (o.members.has(k)) continue;
      const oc = o.children.get(k);
      if (!oc) {
        out.children.set(k, c);
        continue;
      }
      const r = c.set.recursiveDifference(oc.set);
      if (!r.isEmpty()) out.children.set(k, { pe: c.pe, set: r });
    }
    return out;
  }

  /** Whether both sets have the same members. */
  equals(o: PathSet): boolean {
    if (this.members.size !== o.members.size) return false;
    for (const k of this.members.keys()) if (!o.members.has(k)) return false;
    const mine = [...this.children].filter(([, c]) => !c.set.isEmpty());
    const theirs = [...o.children].filter(([, c]) => !c.set.isEmpty());
    if (mine.length !== theirs.length) return false;
    for (const [k, c] of mine) {
      const oc = o.children.get(k);
      if (!oc || !c.set.equals(oc.set)) return false;
    }
    return true;
  }

  /** Calls fn with every member path in upstream order: this level's members, then each child's (elements sorted). */
  iterate(fn: (p: Path) => void, prefix: PathElement[] = []): void {
    for (const pe of sortedPEs(this.members.values())) fn([...prefix, pe]);
    for (const c of [...this.children.values()].sort((a, b) => comparePE(a.pe, b.pe))) c.set.iterate(fn, [...prefix, c.pe]);
  }

  /** All member paths, in iterate order. */
  paths(): Path[] {
    const out: Path[] = [];
    this.iterate((p) => out.push(p));
    return out;
  }

  /** One path per line (for tests and debugging). */
  toString(): string {
    return this.paths().map(pathString).join('\n');
  }

  private isEmptyShallow(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** Whether any element of this level also appears (as member or child) at `o`'s level: if not, differences change nothing. */
  private overlaps(o: PathSet): boolean {
    for (const k of this.members.keys()) if (o.members.has(k)) return true;
    for (const k of this.children.keys()) if (o.members.has(k) || o.children.has(k)) return true;
    return false;
  }
}

const EMPTY = new PathSet();

function sortedPEs(it: Iterable<PathElement>): PathElement[] {
  return [...it].sort(comparePE);
}

/**
 * Encodes a set as a FieldsV1 object: keys sorted as upstream serialises them, `".": {}` first when
 * a member also has children.
 */
export function toFieldsV1(s: PathSet): Record<string, unknown> {
  return emit(s, false);
}

function emit(s: PathSet, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (includeSelf) out['.'] = {};
  const byKey = new Map<string, { pe: PathElement; key: string; member: boolean; child?: PathSet }>();
  for (const [key, pe] of s.members) byKey.set(key, { pe, key, member: true });
  for (const [key, c] of s.children) {
    if (c.set.isEmpty()) continue;
    const e = byKey.get(key);
    if (e) e.child = c.set;
    else byKey.set(key, { pe: c.pe, key, member: false, child: c.set });
  }
  const entries = [...byKey.values()];
  entries.sort((a, b) => comparePE(a.pe, b.pe));
  for (const e of entries) out[e.key] = e.child ? emit(e.child, e.member) : {};
  return out;
}

/**
 * Decodes a FieldsV1 object into a set. Keys of unknown element types are skipped, as upstream does.
 * @throws FieldsV1Error when the value is not a FieldsV1 object or a key is malformed
 */
export function fromFieldsV1(fields: unknown): PathSet {
  if (fields === undefined || fields === null) return new PathSet();
  if (typeof fields !== 'object' || Array.isArray(fields)) throw new FieldsV1Error('FieldsV1 must be a JSON object');
  return readLevel(fields as Record<string, unknown>).set ?? new PathSet();
}

/** Reads one level: its children, and whether the level itself is a member of its parent. */
function readLevel(o: Record<string, unknown>): { set?: PathSet; member: boolean } {
  let set: PathSet | undefined;
  let member = false;
  for (const key of Object.keys(o)) {
    if (key === '.') {
      member = true;
      continue;
    }
    const pe = parsePE(key);
    if (!pe) continue;
    const v = o[key];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new FieldsV1Error(`FieldsV1 value of ${JSON.stringify(key)} must be an object`);
    const child = readLevel(v as Record<string, unknown>);
    const canonical = pe.kind === 'field' ? key : peKey(pe);
    set ??= new PathSet();
    if (child.member) set.insertMember(pe, canonical);
    if (child.set) {
      const existing = set.children.get(canonical);
      set.children.set(canonical, { pe, set: existing ? existing.set.union(child.set) : child.set });
    }
  }
  if (!set) member = true;
  return { set, member };
}
