/**
 * Rules for JSON that must round-trip exactly (docs/api-rules.md#sizes-and-free-form-json). Everything here is
 * iterative: a hostile body nested 40,000 levels deep must not overflow the stack.
 */

/** Deepest nesting a free-form value may have; the value itself is level 1. */
export const maxJsonDepth = 256;

/** UTF-8 byte length of a field as the contract measures it: `JSON.stringify(field)`. */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

/** The JSON of free-form objects a request carried, as their schema measured it (common.ts, freeForm). */
const requestTexts = new WeakMap<object, string>();

/**
 * `JSON.stringify` of a free-form object of a request, encoded once: its schema measures it, and the
 * handler that stores it as text takes the same text instead of encoding it again (issue 30). Only for
 * values nobody changes after they were validated: a request's body as parsed.
 */
export function requestJson(value: object): string {
  let text = requestTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    requestTexts.set(value, text);
  }
  return text;
}

/** A JSON object: not null, not an array. Its own keys may be anything, `__proto__` included. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Objects of request bodies whose whole text `faithfulText` cleared (vouchFor). */
const vouched = new WeakSet<object>();

/** Number literals that may overflow a double: an exponent of three digits or more, or 309 digits in a row. */
const bigExponent = /\d[eE]\+?\d{3}/;
const manyDigits = /\d{309}/;

/**
 * Whether JSON text with `brackets` opening brackets (bracketsUpTo) cannot hold what `unfaithfulJson`
 * refuses: with no more than `maxJsonDepth` in all, nothing in it nests deeper, and no number literal in
 * it could overflow. Text that might (a string that reads "1e100" counts too) is walked once parsed instead.
 */
export const faithfulText = (text: string, brackets: number): boolean =>
  brackets <= maxJsonDepth && !bigExponent.test(text) && !manyDigits.test(text);

/**
 * Marks a parsed body whose text `faithfulText` cleared, and its objects `levels` below it, so that the
 * schema of each free-form field it carries does not walk it again (issue 30). Only for values nobody
 * changes after they were parsed, as `requestJson`.
 */
export function vouchFor(value: unknown, levels: number): void {
  if (typeof value !== "object" || value === null) return;
  vouched.add(value);
  if (levels > 0) for (const child of Object.values(value)) vouchFor(child, levels - 1);
}

/**
 * Why `value` cannot be stored faithfully, or undefined when it can: nesting deeper than
 * `maxJsonDepth`, or a number that overflowed to infinity (`1e309` parses to Infinity and would be
 * written back as `null`).
 */
export function unfaithfulJson(value: unknown): string | undefined {
  const infinite = "must not contain numbers outside the range of a double (such as 1e309)";
  if (typeof value === "number") return Number.isFinite(value) ? undefined : infinite;
  if (typeof value !== "object" || value === null || vouched.has(value)) return undefined;
  // Objects and their depths on two stacks, numbers checked where they are found: a save is mostly
  // numbers, and this runs on every sync (issue 30).
  const objects: object[] = [value];
  const depths: number[] = [1];
  while (objects.length > 0) {
    const v = objects.pop()!;
    const depth = depths.pop()!;
    if (depth > maxJsonDepth) return `must not nest deeper than ${maxJsonDepth} levels`;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "number") {
        if (!Number.isFinite(child)) return infinite;
      } else if (typeof child === "object" && child !== null) {
        objects.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}

/**
 * Whether any string (value or key) holds a lone UTF-16 surrogate, which JSON may spell (`"\ud800"`)
 * but UTF-8 cannot carry: stored or sent on, it would silently become U+FFFD.
 */
export function hasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (!v.isWellFormed()) return true;
    } else if (typeof v === "object" && v !== null) {
      for (const [key, child] of Object.entries(v)) {
        if (!key.isWellFormed()) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

/** How many opening brackets JSON text holds, counted up to `limit + 1` by a native search. */
export function bracketsUpTo(text: string, limit: number): number {
  let opens = 0;
  for (const bracket of ["{", "["]) {
    for (let i = text.indexOf(bracket); i !== -1 && opens <= limit; i = text.indexOf(bracket, i + 1)) opens++;
  }
  return opens;
}

/**
 * Whether JSON text nests deeper than `limit`. Text with no more than `limit` opening brackets cannot
 * (`brackets`, from bracketsUpTo); only text with more is scanned character by character.
 */
export const deeperThan = (text: string, limit: number, brackets: number): boolean =>
  brackets > limit && textDepth(text) > limit;

/**
 * Nesting depth of JSON text, counted without parsing. A cheap guard run before `JSON.parse`, so
 * that neither the parser nor anything after it walks a hostile depth.
 */
export function textDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) max = Math.max(max, ++depth);
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return max;
}
