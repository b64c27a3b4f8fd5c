import { expect } from "bun:test";
import {
  defaultSyncPolicy,
  type JsonObject,
  manualClock,
  memoryStorage,
  routes,
  SavepointClient,
} from "../../sdk/src/index.ts";

/** Fails when a case has a field this runner does not know, or lacks one it needs: no case is skipped silently. */
export function checkFields(what: string, c: Record<string, unknown>, allowed: string[], required: string[]) {
  const unknown = Object.keys(c).filter((k) => !allowed.includes(k));
  const missing = required.filter((k) => !(k in c));
  if (!unknown.length && !missing.length) return;
  throw new Error(
    `${what}: cannot run (unknown fields ${unknown.join(",") || "none"}, missing ${missing.join(",") || "none"})`,
  );
}

/** The values JSON cannot spell, from the markers sdk-vectors/README.md lists (`{"$number": "NaN"}`, ...). */
export function decodeMarkers(v: unknown, parents: object[] = []): unknown {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    parents.push(out);
    for (const x of v) out.push(decodeMarkers(x, parents));
    parents.pop();
    return out;
  }
  if (typeof v !== "object" || v === null) return v;
  const keys = Object.keys(v);
  const arg = (v as Record<string, unknown>)[keys[0]!];
  if (keys.length === 1 && keys[0]!.startsWith("$")) {
    switch (keys[0]) {
      case "$number":
        return Number(arg);
      case "$undefined":
        return undefined;
      case "$function":
        return () => 0;
      case "$bigint":
        return BigInt(arg as string);
      case "$cycle":
        return parents[parents.length - (arg as number)];
      case "$date":
        return new Date(arg as string);
      case "$map":
        return new Map(arg as [unknown, unknown][]);
      case "$nest": {
        let out: unknown = 0;
        for (let i = 0; i < (arg as number); i++) out = [out];
        return out;
      }
      case "$zeros":
        return Array(arg as number).fill(0);
      default:
        throw new Error(`cannot run: unknown marker ${keys[0]}`);
    }
  }
  const out: Record<string, unknown> = {};
  parents.push(out);
  for (const k of keys) out[k] = decodeMarkers((v as Record<string, unknown>)[k], parents);
  parents.pop();
  return out;
}

type Answer = {
  route: string;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  bodyText?: string;
  lost?: boolean;
};
type Step = { save?: { slot: string; data: JsonObject }; saveAccountData?: JsonObject; sync?: true; restart?: true };
export type Scenario = {
  name: string;
  replay?: "latest" | "all";
  retryAttempts?: number;
  steps: Step[];
  answers: Answer[];
  requests: { route: string; key: string | null; body?: unknown }[];
};

const routeMatchers = Object.entries(routes).map(([op, r]) => ({
  op,
  method: r.method,
  pattern: new RegExp(`^${r.path.replace(/\{[A-Za-z]+\}/g, "[^/]+")}$`),
}));
const routeOf = (method: string, path: string) =>
  routeMatchers.find((m) => m.method === method && m.pattern.test(path))?.op ?? `${method} ${path}`;

/** Runs one idempotency scenario against a scripted server (README of sdk-vectors, idempotency.json). */
export async function runScenario(s: Scenario) {
  for (const step of s.steps)
    checkFields(`${s.name}: a step`, step, ["save", "saveAccountData", "sync", "restart"], []);
  for (const a of s.answers)
    checkFields(`${s.name}: an answer`, a, ["route", "status", "headers", "body", "bodyText", "lost"], ["route"]);
  const storage = memoryStorage();
  const clock = manualClock();
  const answers = [...s.answers];
  const seen: { route: string; key: string | null; body?: unknown }[] = [];
  const unexpected: string[] = [];
  // Nothing syncs on its own: only the scenario's `sync` steps push.
  const policy = {
    ...defaultSyncPolicy,
    minRemoteSyncIntervalSeconds: 3600,
    forceSyncCooldownSeconds: 0,
    syncOnReconnect: false,
  };
  const fetchFn = async (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => {
    const route = routeOf(init.method, new URL(url).pathname);
    if (route === "getRuntimeConfig") return new Response(JSON.stringify({ syncPolicy: policy }), { status: 200 });
    seen.push({
      route,
      key: init.headers["idempotency-key"] ?? null,
      ...(init.body ? { body: JSON.parse(init.body) } : {}),
    });
    const a = answers.shift();
    if (!a || a.route !== route) {
      unexpected.push(route);
      throw new TypeError("no scripted answer");
    }
    if (a.lost) throw new TypeError("connection reset before the answer");
    return new Response(a.bodyText ?? JSON.stringify(a.body), { status: a.status, headers: a.headers });
  };
  const make = () =>
    new SavepointClient({
      baseUrl: "http://vectors.invalid",
      runtimeKey: "spk_vectors",
      storage,
      clock,
      fetch: fetchFn,
      browserLifecycle: false,
      replay: s.replay ?? "latest",
      retry: { attempts: s.retryAttempts ?? 1, random: () => 0 },
    });
  let client = make();
  await client.ready();
  await client.adoptEnvelope({ accountId: "acc_vectors", accountSessionToken: "tok_vectors" });
  for (const step of s.steps) {
    if (step.save) await client.save(step.save.slot, step.save.data);
    if (step.saveAccountData) await client.saveAccountData(step.saveAccountData);
    if (step.restart) {
      client.close();
      client = make();
      await client.ready();
    }
    if (step.sync) {
      let done = false;
      const run = client
        .sync({ force: true })
        .then(() => client.settled())
        .finally(() => (done = true));
      // Retry waits run on the manual clock: let them fall due.
      for (let i = 0; i < 100 && !done; i++) await clock.advance(0);
      await run;
    }
  }
  client.close();
  expect(unexpected).toEqual([]);
  expect(answers).toEqual([]);
  expect(seen.map(({ key: _, ...r }) => r)).toEqual(s.requests.map(({ key: _, ...r }) => r));
  // Same label, same key; different labels, different keys; null, no header.
  const labelToKey = new Map<string, string>();
  const keyToLabel = new Map<string, string>();
  for (const [i, r] of seen.entries()) {
    const label = s.requests[i]!.key;
    if (label === null || r.key === null) {
      expect([i, r.key]).toEqual([i, label]);
      continue;
    }
    expect([i, labelToKey.get(label) ?? r.key, keyToLabel.get(r.key) ?? label]).toEqual([i, r.key, label]);
    labelToKey.set(label, r.key);
    keyToLabel.set(r.key, label);
  }
}
