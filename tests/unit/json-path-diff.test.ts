import { describe, expect, test } from "bun:test";
import { diffBounds, diffTable } from "../../services/gateway/console/diff.ts";
import { jsonPathDiff } from "../../services/gateway/console/json-path-diff.ts";

describe("jsonPathDiff", () => {
  test("an added and a removed key are named as such, never paired with each other", () => {
    const d = jsonPathDiff({ hp: 100, level: 3 }, { level: 3, gold: 0 });
    expect(d.entries).toEqual([
      { kind: "removed", path: "hp", before: 100 },
      { kind: "unchanged", path: "", count: 1 },
      { kind: "added", path: "gold", after: 0 },
    ]);
    expect([d.added, d.removed, d.changed, d.unchanged]).toEqual([1, 1, 0, 1]);
  });

  test("a changed value keeps old and new; nested paths, arrays by index, odd keys quoted", () => {
    const before = { data: { hp: 100, items: ["sword", "shield"], "a.b": 1 }, slotInfo: { level: 1 } };
    const after = { slotInfo: { level: 1 }, data: { hp: 80, items: ["sword", "bow", "potion"], "a.b": 2 } };
    const d = jsonPathDiff(before, after);
    expect(d.entries.filter((e) => e.kind !== "unchanged")).toEqual([
      { kind: "changed", path: "data.hp", before: 100, after: 80 },
      { kind: "changed", path: "data.items[1]", before: "shield", after: "bow" },
      { kind: "added", path: "data.items[2]", after: "potion" },
      { kind: "changed", path: 'data["a.b"]', before: 1, after: 2 },
    ]);
    // Key order does not matter: the equal slotInfo is one unchanged key at the root.
    expect(d.entries).toContainEqual({ kind: "unchanged", path: "", count: 1 });
  });

  test("a run of unchanged keys folds into one count; equal values have no differences", () => {
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, i]));
    const d = jsonPathDiff({ ...many, x: 1 }, { ...many, x: 2 });
    expect(d.entries).toEqual([
      { kind: "unchanged", path: "", count: 12 },
      { kind: "changed", path: "x", before: 1, after: 2 },
    ]);
    expect(jsonPathDiff({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toMatchObject({
      added: 0,
      removed: 0,
      changed: 0,
      unchanged: 1,
    });
    expect(jsonPathDiff(undefined, { a: 1 }).entries).toEqual([{ kind: "added", path: "", after: { a: 1 } }]);
    expect(jsonPathDiff({ a: { b: 1 } }, { a: [1] }).entries).toEqual([
      { kind: "changed", path: "a", before: { b: 1 }, after: [1] },
    ]);
  });
});

describe("diffTable", () => {
  test("says added and removed in words, with the path", () => {
    const text = diffTable("Version 1", { hp: 100 }, "Version 2", { gold: 0 }).text;
    expect(text).toContain("1 added, 1 removed");
    expect(text).toMatch(/<tr class="removed">.*<code>hp<\/code> <span class="kind">removed<\/span>/);
    expect(text).toMatch(/<tr class="added">.*<code>gold<\/code> <span class="kind">added<\/span>/);
    expect(diffTable("a", { x: 1 }, "b", { x: 1 }).text).toContain("No differences.");
  });

  test("a 256 KB save with every value changed renders bounded: rows cut, long values cut with their size", () => {
    const big = (tag: string) =>
      Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key${i}`, `${tag}${"x".repeat(120)}"quoted"`]));
    const long = { blob: "y".repeat(200_000) };
    const text = diffTable("Before", { ...big("a"), ...long }, "After", {
      ...big("b"),
      blob: "z".repeat(200_000),
    }).text;
    expect(Buffer.byteLength(text)).toBeLessThan(diffBounds.maxBytes + 4096);
    expect(text).toContain("more changed paths not shown");
    const one = diffTable("Before", long, "After", { blob: "z" }).text;
    expect(one).toContain("195.3 KB in all");
  });
});
