import { describe, expect, test } from "bun:test";
import { encodeJson, JsonText } from "../../shared/util/json-text.ts";

const stored = JSON.stringify({ gold: 10, items: ["a", "b"], nested: { deep: [1, { x: "é\n" }] } });

describe("JSON stored as text, served as it is", () => {
  test("encodeJson writes each JsonText as its own text, byte for byte what the parsed value would give", () => {
    const answer = { slotId: "main", version: 3, data: new JsonText(stored), again: new JsonText("[1,2]") };
    const plain = { slotId: "main", version: 3, data: JSON.parse(stored), again: [1, 2] };
    expect(encodeJson(answer)).toBe(JSON.stringify(plain));
  });

  test("JSON.stringify anywhere else (a record, a log) still gets the value", () => {
    const answer = { data: new JsonText(stored) };
    expect(JSON.parse(JSON.stringify(answer))).toEqual({ data: JSON.parse(stored) });
  });

  test("a string of the answer's own that looks like a splice marker is kept, not replaced", () => {
    for (const own of ["\u00000", "\u00001", "\u0000"]) {
      const answer = { label: own, data: new JsonText("[7]") };
      expect(JSON.parse(encodeJson(answer))).toEqual({ label: own, data: [7] });
    }
  });

  test("an answer without JsonText is JSON.stringify's own text", () => {
    const value = { a: [1, "two", null], b: { c: true } };
    expect(encodeJson(value)).toBe(JSON.stringify(value));
  });

  test("every kind of value, at every level around the texts and below it, encodes as JSON.stringify would", () => {
    const at = new Date(Date.UTC(2026, 10, 27));
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = new JsonText("[3]");
    // Few keys a level, as an answer's envelope has (the general path takes objects of more than 16).
    const value = (depth: number): Record<string, unknown> => ({
      "2": "integer-like keys first",
      text: new JsonText(stored),
      kinds: { n: 1.5, nan: Number.NaN, none: null, gone: undefined, fn: () => 1, sym: Symbol("s"), yes: true },
      s: 'quote " and \u2028 \u0000',
      'odd "key"': 1,
      at,
      list: [new JsonText("{}"), undefined, 2, { t: new JsonText("[1]") }],
      custom: { toJSON: () => ({ made: new JsonText("[9]") }) },
      bare,
      empty: {},
      "1": "integer-like keys first",
      ...(depth < 4 ? { inner: value(depth + 1) } : {}),
    });
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, new JsonText(`[${i}]`)]));
    expect(encodeJson({ many })).toBe(JSON.stringify({ many: JSON.parse(JSON.stringify(many)) }));
    const written = encodeJson(value(0));
    const parsedTexts = JSON.parse(JSON.stringify(value(0))); // toJSON: each text's value
    expect(written).toBe(JSON.stringify(parsedTexts));
    expect(encodeJson(new JsonText(stored))).toBe(stored);
    expect(encodeJson([new JsonText("[1]")])).toBe("[[1]]");
    expect(encodeJson("plain")).toBe('"plain"');
  });
});
