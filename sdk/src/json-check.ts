import { SavepointError } from "./errors.ts";

/** Deepest nesting the server stores (the value itself is level 1): deeper is refused there too. */
export const maxJsonDepth = 256;

/** Where in a value the refused part is: object keys and array indexes from the root (README, What JSON can carry). */
export type JsonPath = (string | number)[];

/** Why a value cannot travel as JSON unchanged; the `reason` of an `invalid_json` error's details. */
export type JsonRefusal =
  | "not_finite"
  | "undefined"
  | "function"
  | "symbol"
  | "bigint"
  | "cycle"
  | "too_deep"
  | "not_plain_object"
  | "sparse_array"
  | "lone_surrogate"
  | "not_an_object";

const messages: Record<JsonRefusal, string> = {
  not_finite: "NaN and ±Infinity have no JSON form (they would become null)",
  undefined: "undefined has no JSON form (the key would vanish, an array item would become null)",
  function: "a function has no JSON form (it would vanish)",
  symbol: "a symbol has no JSON form (it would vanish)",
  bigint: "a BigInt has no JSON form",
  cycle: "the value contains itself",
  too_deep: `JSON nested deeper than ${maxJsonDepth} levels is refused by the server`,
  not_plain_object:
    "only plain objects and arrays round-trip (a Date, Map, Set or class instance would come back changed)",
  sparse_array: "an array with holes or extra properties would come back changed",
  lone_surrogate: "a string with a lone UTF-16 surrogate cannot be sent as UTF-8 unchanged",
  not_an_object: "must be a JSON object (not an array, null or a primitive)",
};

/** Whether a string is valid UTF-16 (String.prototype.isWellFormed, which older engines lack). */
function wellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c > 0xdbff) return false;
    const next = s.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
    i++;
  }
  return true;
}

/** The first part of `value` that JSON cannot carry exactly, with its path; undefined when it all can. */
export function jsonRefusal(
  value: unknown,
  options: { object?: boolean; optionalTopLevel?: boolean } = {},
): { path: JsonPath; reason: JsonRefusal } | undefined {
  if (options.object && (typeof value !== "object" || value === null || Array.isArray(value)))
    return { path: [], reason: "not_an_object" };
  const ancestors = new Set<object>();
  const path: JsonPath = [];
  const walk = (v: unknown, depth: number): JsonRefusal | undefined => {
    switch (typeof v) {
      case "string":
        return wellFormed(v) ? undefined : "lone_surrogate";
      case "boolean":
        return undefined;
      case "number":
        // -0 is sent as 0, which is equal to it (`-0 === 0`): accepted, not worth refusing a game's Math.round(-0.2).
        return Number.isFinite(v) ? undefined : "not_finite";
      case "undefined":
      case "function":
      case "symbol":
      case "bigint":
        return typeof v as "undefined" | "function" | "symbol" | "bigint";
    }
    if (v === null) return undefined;
    const o = v as object;
    if (depth > maxJsonDepth) return "too_deep";
    if (ancestors.has(o)) return "cycle";
    const array = Array.isArray(o);
    const proto = Object.getPrototypeOf(o);
    if (array ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) return "not_plain_object";
    if (Object.getOwnPropertySymbols(o).length > 0) return "symbol";
    const keys = Object.keys(o);
    if (array && keys.length !== (o as unknown[]).length) return "sparse_array";
    ancestors.add(o);
    for (const k of keys) {
      const key: string | number = array ? Number(k) : k;
      path.push(key);
      if (!array && !wellFormed(k)) return "lone_surrogate";
      const child = (o as Record<string, unknown>)[k];
      if (!(depth === 1 && options.optionalTopLevel && child === undefined)) {
        const r = walk(child, depth + 1);
        if (r) return r;
      }
      path.pop();
    }
    ancestors.delete(o);
    return undefined;
  };
  const reason = walk(value, 1);
  return reason ? { path, reason } : undefined;
}

/**
 * Throws `SavepointError("invalid_json")` when `value` would not come back exactly as given, before
 * anything is written or sent. `details`: `{ field, path, reason }`, `path` an array of keys and indexes.
 */
export function assertJson(
  field: string,
  value: unknown,
  options: { object?: boolean; optionalTopLevel?: boolean } = {},
): void {
  const refusal = jsonRefusal(value, options);
  if (!refusal) return;
  const where = refusal.path.length ? ` at ${JSON.stringify(refusal.path)}` : "";
  throw new SavepointError("invalid_json", `${field}${where}: ${messages[refusal.reason]}`, 0, { field, ...refusal });
}
