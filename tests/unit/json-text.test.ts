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
});
