/**
 * A diff of two JSON values by path (docs/console.md): what was added, removed or changed, each named by
 * its path, with unchanged keys folded into a count. Pure: no HTML, no I/O, so every diff in the console
 * (and any other caller) reads the same way. Objects are compared key by key, whatever their key order;
 * arrays index by index; anything else by value.
 */

export type DiffEntry =
  | { kind: "added"; path: string; after: unknown }
  | { kind: "removed"; path: string; before: unknown }
  | { kind: "changed"; path: string; before: unknown; after: unknown }
  /** `count` keys (or array items) under `path` that are equal on both sides, folded into one entry. */
  | { kind: "unchanged"; path: string; count: number };

export interface JsonPathDiff {
  /** In document order: the first value's keys, then keys only the second value has. */
  entries: DiffEntry[];
  added: number;
  removed: number;
  changed: number;
  /** Keys and items equal on both sides (an equal object counts once, not its every key). */
  unchanged: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const plainKey = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `a.b`, `a[3]`, and `a["x.y"]` for a key that is not a plain name; the root is the empty string. */
export const pathOf = (parent: string, key: string | number) =>
  typeof key === "number"
    ? `${parent}[${key}]`
    : plainKey.test(key)
      ? parent
        ? `${parent}.${key}`
        : key
      : `${parent}[${JSON.stringify(key)}]`;

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return false;
}

/** Compares `before` and `after`; `undefined` on one side means the value is absent there. */
export function jsonPathDiff(before: unknown, after: unknown): JsonPathDiff {
  const out: JsonPathDiff = { entries: [], added: 0, removed: 0, changed: 0, unchanged: 0 };
  let fold: Extract<DiffEntry, { kind: "unchanged" }> | undefined;
  const same = (parent: string) => {
    out.unchanged++;
    if (fold?.path === parent && out.entries.at(-1) === fold) fold.count++;
    else {
      fold = { kind: "unchanged", path: parent, count: 1 };
      out.entries.push(fold);
    }
  };
  const walk = (path: string, parent: string, a: unknown, b: unknown): void => {
    if (a === undefined && b === undefined) return;
    if (a === undefined) {
      out.added++;
      out.entries.push({ kind: "added", path, after: b });
      return;
    }
    if (b === undefined) {
      out.removed++;
      out.entries.push({ kind: "removed", path, before: a });
      return;
    }
    if (equal(a, b)) {
      same(parent);
      return;
    }
    if (isObject(a) && isObject(b)) {
      for (const k of Object.keys(a)) walk(pathOf(path, k), path, a[k], Object.hasOwn(b, k) ? b[k] : undefined);
      for (const k of Object.keys(b)) if (!Object.hasOwn(a, k)) walk(pathOf(path, k), path, undefined, b[k]);
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++)
        walk(pathOf(path, i), path, i < a.length ? a[i] : undefined, i < b.length ? b[i] : undefined);
      return;
    }
    out.changed++;
    out.entries.push({ kind: "changed", path, before: a, after: b });
  };
  walk("", "", before, after);
  return out;
}
