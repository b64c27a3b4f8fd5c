import { describe, expect, test } from "bun:test";
import { ownStamp, parseStamp, stampChanges } from "../../shared/serving/write-stamp.ts";

const recordId = "9f2c".repeat(16);

describe("write stamps", () => {
  test("one format, recordId@version, with the answer's warnings when there are any", () => {
    expect(stampChanges(recordId, 7, undefined)).toEqual({ lastWrite: `${recordId}@7` });
    expect(stampChanges(recordId, 7, ["slot data is near its limit"])).toEqual({
      lastWrite: `${recordId}@7 ["slot data is near its limit"]`,
    });
    expect(stampChanges(undefined, 7, ["x"])).toEqual({});
  });

  test("what is written reads back", () => {
    for (const warnings of [undefined, [], ["a b", "c@d"]]) {
      expect(parseStamp(stampChanges(recordId, 3, warnings).lastWrite!)).toEqual({
        recordId,
        version: 3,
        ...(warnings ? { warnings } : {}),
      });
    }
  });

  test("stamps stored before keep reading: accounts' JSON and saves' key@version", () => {
    const accounts = JSON.stringify({ key: recordId, version: 4, warnings: ["w"] });
    expect(parseStamp(accounts)).toEqual({ recordId, version: 4, warnings: ["w"] });
    expect(parseStamp(JSON.stringify({ key: recordId, version: 4 }))).toEqual({ recordId, version: 4 });
    expect(parseStamp(`${recordId}@12`)).toEqual({ recordId, version: 12 });
  });

  test("a document holds its own write only when the stamp is this request's and of the version it holds", () => {
    const doc = { version: 5, lastWrite: `${recordId}@5` };
    expect(ownStamp(doc, recordId)).toEqual({ recordId, version: 5 });
    expect(ownStamp({ ...doc, version: 6 }, recordId)).toBeUndefined();
    expect(ownStamp(doc, "other")).toBeUndefined();
    expect(ownStamp(doc, undefined)).toBeUndefined();
    expect(ownStamp({ version: 5 }, recordId)).toBeUndefined();
    expect(ownStamp({ version: 5, lastWrite: JSON.stringify({ key: recordId, version: 5 }) }, recordId)).toEqual({
      recordId,
      version: 5,
    });
  });
});
