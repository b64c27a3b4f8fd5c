import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  decide,
  isRetryable,
  jsonRefusal,
  manualClock,
  mergeRules,
  offsetFromDate,
  reattachDecision,
  routes,
  SavepointError,
  summarize,
  type TargetResult,
  Transport,
  targetResult,
  unsyncedOf,
} from "../../sdk/src/index.ts";
import { type Rule, resolveWith } from "../../sdk/src/merge.ts";
import { checkFields, decodeMarkers, runScenario, type Scenario } from "./vector-runners.ts";

// The test vectors every Savepoint client shares (sdk-vectors/README.md): every file, every case, or the test fails.
const dir = join(import.meta.dir, "..", "..", "sdk-vectors");
type Case = Record<string, any>;
type VectorFile = { kind: string; cases?: Case[]; [k: string]: unknown };

const runners: Record<string, (file: VectorFile) => void> = {
  merge(file) {
    for (const c of file.cases!) {
      test(`merge: ${c.name}`, () => {
        const fields = ["name", "resolution", "rules", "otherwise", "context", "base", "server", "local", "merged"];
        checkFields(c.name, c, fields, ["name", "base", "server", "local", "merged"]);
        const resolution = c.resolution ?? "rules";
        if (!["rules", "server", "local"].includes(resolution))
          throw new Error(`${c.name}: cannot run resolution ${resolution}`);
        const resolve =
          resolution === "rules" ? mergeRules(c.rules ?? {}, (c.otherwise ?? "local") as Rule) : resolution;
        const context = {
          target: "main",
          serverUpdatedAt: c.context?.serverUpdatedAt ?? 0,
          localSavedAt: c.context?.localSavedAt ?? 0,
        };
        expect(resolveWith(resolve, c.base, c.server, c.local, context)).toEqual(c.merged);
      });
    }
  },
  policy(file) {
    const defaults = file.defaults as { policy: Case; state: Case; options: Case };
    for (const c of file.cases!) {
      test(`policy: ${c.name}`, () => {
        checkFields(
          c.name,
          c,
          ["name", "event", "now", "policy", "state", "options", "decision"],
          ["name", "event", "now", "decision"],
        );
        const options = { ...defaults.options, ...c.options };
        const random = options.random as number;
        const [policy, state] = [
          { ...defaults.policy, ...c.policy },
          { ...defaults.state, ...c.state },
        ];
        const decision = decide(policy as never, state as never, c.event, c.now, {
          ...options,
          random: () => random,
        } as never);
        expect(decision).toEqual(c.decision);
      });
    }
  },
  errors(file) {
    for (const c of file.cases!) {
      test(`errors: ${c.name}`, async () => {
        checkFields(
          c.name,
          c,
          ["name", "status", "headers", "body", "bodyText", "now", "error", "conflict"],
          ["name", "status"],
        );
        if (!("error" in c) && c.conflict !== true)
          throw new Error(`${c.name}: cannot run (neither error nor conflict)`);
        const text = c.bodyText ?? JSON.stringify(c.body);
        const fetchFn = async () => new Response(text, { status: c.status, headers: c.headers ?? {} });
        const clock = manualClock(c.now ? Date.parse(c.now) : undefined);
        const transport = new Transport({
          baseUrl: "http://vectors.invalid",
          runtimeKey: "k",
          fetch: fetchFn,
          clock,
          retry: { attempts: 1 },
        });
        const route = { method: "POST", path: "/api/v1/vectors", auth: "runtimeKey", ok: 200, idempotent: true };
        const answer = await transport.callRoute(route, { body: {} }).then(
          (a) => a,
          (e: unknown) => e,
        );
        if (c.conflict)
          return expect((answer as { status: number; body: { status: string } }).body.status).toBe("conflict");
        expect(answer).toBeInstanceOf(SavepointError);
        const e = answer as SavepointError;
        const got = {
          code: e.code,
          message: e.message,
          status: e.status,
          details: e.details,
          retryAfterSeconds: e.retryAfterSeconds,
          requestId: e.requestId,
        };
        const want = { message: e.message, retryAfterSeconds: undefined, requestId: undefined, ...c.error };
        expect({ ...got, retryable: isRetryable(e) }).toEqual(want);
      });
    }
  },
  "json-refusal"(file) {
    for (const c of file.cases!) {
      test(`json-refusal: ${c.name}`, () => {
        checkFields(c.name, c, ["name", "value", "object", "accepted", "refused"], ["name", "value"]);
        if (c.accepted !== true && !c.refused) throw new Error(`${c.name}: cannot run (neither accepted nor refused)`);
        const refusal = jsonRefusal(decodeMarkers(c.value), { object: c.object === true });
        expect(refusal).toEqual(c.accepted ? undefined : (decodeMarkers(c.refused) as never));
      });
    }
  },
  "sync-result"(file) {
    const error = (e: { code: string } | undefined) => e && new SavepointError(e.code, e.code, 0);
    for (const c of file.cases!) {
      test(`sync-result: ${c.name}`, () => {
        checkFields(c.name, c, ["name", "engine", "targets", "result"], ["name", "engine", "targets", "result"]);
        checkFields(
          `${c.name}: engine`,
          c.engine,
          ["stopped", "hasSession", "offline", "lastError", "retryAt"],
          ["stopped", "hasSession", "offline"],
        );
        const engine = { ...c.engine, lastError: error(c.engine.lastError) };
        const results = Object.entries(c.targets as Record<string, Case>).map(([target, t]) => {
          checkFields(
            `${c.name}: ${target}`,
            t,
            ["seqAtCall", "syncedSeq", "inflightSeq", "version", "refused"],
            ["seqAtCall", "syncedSeq"],
          );
          return [target, targetResult({ target, ...t, refused: error(t.refused) } as never, engine)] as const;
        });
        // Errors compare by code: a client's messages are its own.
        const plain = (r: TargetResult) => ("error" in r ? { ...r, error: { code: r.error.code } } : r);
        const got = summarize(Object.fromEntries(results));
        expect({
          ...got,
          targets: Object.fromEntries(Object.entries(got.targets).map(([t, r]) => [t, plain(r)])),
        }).toEqual(c.result);
      });
    }
  },
  "server-clock"(file) {
    for (const c of file.cases!) {
      test(`server-clock: ${c.name}`, () => {
        checkFields(
          c.name,
          c,
          ["name", "date", "sentAt", "receivedAt", "offsetMs"],
          ["name", "date", "sentAt", "receivedAt", "offsetMs"],
        );
        expect(offsetFromDate(c.date, c.sentAt, c.receivedAt) ?? null).toBe(c.offsetMs);
      });
    }
  },
  reattach(file) {
    for (const c of file.cases!) {
      test(`reattach: ${c.name}`, () => {
        const fields = ["name", "via", "currentAccountId", "incomingAccountId", "isNewAccount", "records", "decision"];
        checkFields(c.name, c, fields, ["name", "via", "incomingAccountId", "records", "decision"]);
        const records = (c.records as Case[]).map((r) => {
          checkFields(
            `${c.name}: a record`,
            r,
            ["target", "syncedSeq", "snapshots", "inflight"],
            ["target", "syncedSeq", "snapshots"],
          );
          const snapshots = (r.snapshots as Case[]).map((s) => ({
            savedAt: 0,
            seq: s.seq as number,
            data: s.data,
            ...s,
          }));
          const inflight = r.inflight && { key: "k", baseVersion: null, ...r.inflight };
          const nextSeq = (snapshots.at(-1)?.seq ?? 0) + 1;
          return {
            target: r.target,
            base: null,
            syncedSeq: r.syncedSeq,
            nextSeq,
            snapshots,
            ...(inflight ? { inflight } : {}),
          };
        });
        const { currentAccountId, incomingAccountId, isNewAccount, via } = c;
        const input = {
          via,
          incomingAccountId,
          ...(currentAccountId ? { currentAccountId } : {}),
          ...(isNewAccount !== undefined ? { isNewAccount } : {}),
        };
        expect(reattachDecision({ ...input, unsynced: unsyncedOf(records as never) })).toEqual(c.decision);
      });
    }
  },
  idempotency(file) {
    test("idempotency: which routes carry an Idempotency-Key (every route listed, none extra)", () => {
      expect(Object.fromEntries(Object.entries(routes).map(([op, r]) => [op, r.idempotent]))).toEqual(
        file.routes as never,
      );
    });
    for (const s of file.scenarios as Scenario[]) {
      test(`idempotency: ${s.name}`, async () => {
        checkFields(
          s.name,
          s,
          ["name", "replay", "retryAttempts", "steps", "answers", "requests"],
          ["name", "steps", "answers", "requests"],
        );
        await runScenario(s);
      });
    }
  },
};
const fileFields: Record<string, string[]> = {
  merge: ["kind", "cases"],
  policy: ["kind", "defaults", "cases"],
  errors: ["kind", "cases"],
  "json-refusal": ["kind", "cases"],
  idempotency: ["kind", "routes", "scenarios"],
  "sync-result": ["kind", "cases"],
  "server-clock": ["kind", "cases"],
  reattach: ["kind", "cases"],
};

describe("sdk-vectors: the cases every client runs", () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  test("the folder has its README and a file of each kind; every file is of a kind this runner knows, with no field it ignores", () => {
    expect(existsSync(join(dir, "README.md"))).toBe(true);
    const kinds = files.map((f) => (JSON.parse(readFileSync(join(dir, f), "utf8")) as VectorFile).kind);
    expect([...new Set(kinds)].sort()).toEqual(Object.keys(runners).sort());
    for (const f of files) {
      const file = JSON.parse(readFileSync(join(dir, f), "utf8")) as VectorFile;
      expect([f, Object.keys(file).filter((k) => !fileFields[file.kind]?.includes(k))]).toEqual([f, []]);
    }
    expect(readdirSync(dir).filter((f) => !f.endsWith(".json") && f !== "README.md")).toEqual([]);
  });
  for (const f of files) {
    const file = JSON.parse(readFileSync(join(dir, f), "utf8")) as VectorFile;
    const run = runners[file.kind];
    if (!run) {
      test(`${f}: a kind this runner cannot run`, () => {
        throw new Error(`${f}: unknown kind ${file.kind}`);
      });
      continue;
    }
    run(file);
  }
});
