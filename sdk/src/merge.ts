import type { JsonObject } from "./generated/schemas.ts";

/** What a resolver knows beside the three versions: which record, and when each side was written. */
export interface MergeContext {
  /** A slot id, or `"accountData"`. */
  target: string;
  serverUpdatedAt: number;
  localSavedAt: number;
}

/** `(base, server, local) => merged`: base is the server state the local change was made on. */
export type Resolver = (base: JsonObject, server: JsonObject, local: JsonObject, context: MergeContext) => JsonObject;
export type Resolution = "server" | "local" | Resolver;

/** Ready rules (README, Conflicts). */
export type Rule = "max" | "union" | "latest" | "sum" | "server" | "local" | RuleFn;
export type RuleFn = (base: unknown, server: unknown, local: unknown, context: MergeContext) => unknown;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

function applyRule(rule: Rule, base: unknown, server: unknown, local: unknown, c: MergeContext): unknown {
  if (typeof rule === "function") return rule(base, server, local, c);
  switch (rule) {
    case "max":
      return Math.max(num(server), num(local));
    case "sum":
      // Both sides' gains (or spends) since the common base count: base + (server - base) + (local - base).
      return num(server) + num(local) - num(base);
    case "union":
      return union(base, server, local);
    case "latest":
      return c.localSavedAt >= c.serverUpdatedAt ? local : server;
    case "server":
      return server;
    case "local":
      return local;
  }
}

/**
 * Arrays: every item of either side, server order first (an item removed on one side since the base
 * stays removed). Objects: every key of either side, merged per key the same way. Else local.
 */
function union(base: unknown, server: unknown, local: unknown): unknown {
  if (Array.isArray(server) || Array.isArray(local)) {
    const s = Array.isArray(server) ? server : [];
    const l = Array.isArray(local) ? local : [];
    const b = Array.isArray(base) ? base : [];
    const has = (list: unknown[], x: unknown) => list.some((y) => same(x, y));
    const removed = (x: unknown) => has(b, x) && (!has(s, x) || !has(l, x));
    const out: unknown[] = [];
    for (const x of [...s, ...l]) if (!has(out, x) && !removed(x)) out.push(x);
    return out;
  }
  if (isObject(server) || isObject(local)) {
    const s = isObject(server) ? server : {};
    const l = isObject(local) ? local : {};
    const b = isObject(base) ? base : {};
    const out: JsonObject = {};
    for (const k of new Set([...Object.keys(s), ...Object.keys(l)]))
      out[k] = k in s && k in l ? union(b[k], s[k], l[k]) : k in s ? s[k] : l[k];
    return out;
  }
  return local;
}

/**
 * A resolver from per-path rules (`"stats.highScore": "max"`, `"unlocks": "union"`). Paths without a
 * rule merge three ways: a side that did not change since the base gives way to the one that did;
 * when both changed, `otherwise` decides (default `"local"`). Objects are merged key by key.
 */
export function mergeRules(rules: Record<string, Rule>, otherwise: Rule = "local"): Resolver {
  const walk = (path: string, base: unknown, server: unknown, local: unknown, c: MergeContext): unknown => {
    if (path in rules) return applyRule(rules[path]!, base, server, local, c);
    const prefix = path ? `${path}.` : "";
    const nested = Object.keys(rules).some((r) => r.startsWith(prefix));
    // Equal sides are one state, unless a rule below counts both sides' changes (two +1s that both read 2).
    if (!nested && same(server, local)) return server;
    if (isObject(server) && isObject(local) && (nested || !(same(base, server) || same(base, local)))) {
      const b = isObject(base) ? base : {};
      const out: JsonObject = {};
      for (const k of new Set([...Object.keys(server), ...Object.keys(local)])) {
        const v = walk(prefix + k, b[k], server[k], local[k], c);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    if (same(base, local)) return server;
    if (same(base, server)) return local;
    return applyRule(otherwise, base, server, local, c);
  };
  return (base, server, local, c) => walk("", base, server, local, c) as JsonObject;
}

export function resolveWith(
  resolution: Resolution,
  base: JsonObject,
  server: JsonObject,
  local: JsonObject,
  c: MergeContext,
): JsonObject {
  if (resolution === "server") return server;
  if (resolution === "local") return local;
  return resolution(base, server, local, c);
}
