import { describe, expect, test } from "bun:test";
import { intervalWarnings, snapshotDue } from "../../services/accounts/history/history.ts";
import { applyPatch } from "../../services/accounts/sync-account-data.ts";
import type { ProjectDoc } from "../../services/config/repo.ts";
import { settingsOf } from "../../services/config/settings.ts";
import { TtlCache } from "../../services/gateway/cache.ts";
import { clientIp } from "../../services/gateway/client-ip.ts";
import { validate } from "../../services/gateway/validate.ts";
import { CreateAccountRequest } from "../../shared/contract/accounts.ts";
import type { AppError } from "../../shared/contract/errors.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { defaultProjectSettings } from "../../shared/contract/settings.ts";
import { redact } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { newRuntimeKey, newSessionToken, randomBase62 } from "../../shared/util/ids.ts";

const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as AppError;
  }
  throw new Error("did not throw");
};

describe("account data patch", () => {
  test("merges top-level keys, replaces nested values whole, and removes null keys", () => {
    expect(applyPatch({ a: 1, b: { x: 1 }, c: 3 }, { b: { y: 2 }, c: null, d: [1] })).toEqual({
      a: 1,
      b: { y: 2 },
      d: [1],
    });
  });
  test("leaves the current object untouched", () => {
    const current = { a: 1 };
    applyPatch(current, { a: null });
    expect(current).toEqual({ a: 1 });
  });
});

describe("request validation", () => {
  test("a field over its byte limit alone is 413 with its path and sizes", () => {
    const err = thrown(() =>
      validate(CreateAccountRequest, { slot: { slotId: "s", data: { s: "x".repeat(262_137) } } }),
    );
    expect([err.code, err.details]).toEqual([
      "payload_too_large",
      { field: "slot.data", limitBytes: 262144, actualBytes: 262145 },
    ]);
  });
  test("a shape problem next to an oversized field is 400 listing every issue", () => {
    const err = thrown(() => validate(CreateAccountRequest, { playerRef: 5, accountData: { s: "x".repeat(262_137) } }));
    expect(err.code).toBe("invalid_request");
    expect((err.details!.issues as { path: string }[]).map((i) => i.path).sort()).toEqual(["accountData", "playerRef"]);
  });
  test("arrays and null are not free-form objects", () => {
    expect(thrown(() => validate(CreateAccountRequest, { accountData: [] })).code).toBe("invalid_request");
    expect(thrown(() => validate(CreateAccountRequest, { accountData: null })).code).toBe("invalid_request");
  });
});

describe("credentials", () => {
  test("session tokens carry 256 bits and more; runtime keys name their environment", () => {
    expect(newSessionToken()).toMatch(/^sps_[0-9A-Za-z]{43}$/);
    expect(newRuntimeKey("prod")).toMatch(/^spk_prod_[0-9A-Za-z]{32}$/);
    expect(new Set(Array.from({ length: 1000 }, () => randomBase62(22))).size).toBe(1000);
  });
  test("the log redacts keys, tokens, bearer values and transfer codes", () => {
    const key = newRuntimeKey("stage");
    const token = newSessionToken();
    const line = redact(`key=${key} session=${token} Authorization: Bearer abc.def code ABCDE-FGH12`);
    for (const secret of [key, token, "abc.def", "ABCDE-FGH12"]) expect(line).not.toContain(secret);
  });
});

describe("history policy", () => {
  const deps = { plans: defaultPlans } as Parameters<typeof snapshotDue>[0];
  const now = new Date("2026-01-01T01:00:00Z");
  test("self_hosted keeps every sync; free keeps one per 30 minutes", () => {
    expect(snapshotDue(deps, "self_hosted", "2026-01-01T00:59:59Z", now)).toBe(true);
    expect(snapshotDue(deps, "free", "2026-01-01T00:40:00Z", now)).toBe(false);
    expect(snapshotDue(deps, "free", "2026-01-01T00:30:00Z", now)).toBe(true);
  });
  test("a sync sooner than the policy interval carries a warning", () => {
    expect(intervalWarnings("2026-01-01T00:59:30Z", 60, now)).toEqual(["sync_interval_below_policy"]);
    expect(intervalWarnings("2026-01-01T00:59:00Z", 60, now)).toBeUndefined();
    expect(intervalWarnings(undefined, 60, now)).toBeUndefined();
  });
});

describe("configuration", () => {
  test("a bad value stops start-up naming the variable", () => {
    expect(() => readEnv({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => readEnv({ SAVEPOINT_ADMIN_TOKEN: "short" })).toThrow(/SAVEPOINT_ADMIN_TOKEN/);
    expect(readEnv({}).PORT).toBe(8080);
  });
});

test("the TTL cache forgets expired entries and drops matching ones on demand", async () => {
  const cache = new TtlCache<{ account: string }>(30, 2);
  cache.set("a", { account: "x" }, cache.generation);
  cache.set("b", { account: "y" }, cache.generation);
  cache.set("c", { account: "y" }, cache.generation);
  expect(cache.get("a")).toBeUndefined(); // evicted: the bound is 2
  cache.deleteWhere((v) => v.account === "y");
  expect(cache.get("b")).toBeUndefined();
  cache.set("d", { account: "z" }, cache.generation);
  await Bun.sleep(40);
  expect(cache.get("d")).toBeUndefined();
});

test("the session cache keeps an entry no longer than the moment the session would expire, on its own clock", () => {
  let clock = 1_000_000;
  const cache = new TtlCache<string>(30_000, 10, () => clock);
  cache.set("expiring", "s1", cache.generation, clock + 5_000);
  cache.set("lasting", "s2", cache.generation, clock + 86_400_000);
  cache.set("expired", "s3", cache.generation, clock);
  expect(cache.get("expired")).toBeUndefined();
  clock += 5_001;
  expect([cache.get("expiring"), cache.get("lasting")]).toEqual([undefined, "s2"]);
  clock += 25_000; // the TTL still bounds the rest
  expect(cache.get("lasting")).toBeUndefined();
});

test("a project's stored settings from before a rate limit was added get that limit's default", () => {
  const old = {
    transferCodeTtlSeconds: 120,
    rateLimits: {
      accountCreationsPerIpPerMinute: 2,
      authExchangesPerIpPerMinute: 30,
      sessionRequestsPerMinute: 50,
      transferFailuresPerKeyPerMinute: 60,
    },
  };
  const settings = settingsOf({ settings: JSON.stringify(old) } as ProjectDoc);
  expect(settings).toEqual({
    ...old,
    rateLimits: {
      ...old.rateLimits,
      accountConcurrentRequests: defaultProjectSettings.rateLimits.accountConcurrentRequests,
      saveCreationsPerIpPerMinute: defaultProjectSettings.rateLimits.saveCreationsPerIpPerMinute,
    },
    allowedOrigins: {},
    sessionIdleDays: 180,
  });
});

test("the TTL cache keeps no answer asked for before an invalidation", () => {
  const cache = new TtlCache<{ account: string }>(60_000);
  for (const invalidate of [() => cache.clear(), () => cache.deleteWhere((v) => v.account === "other")]) {
    const asOf = cache.generation;
    invalidate();
    cache.set("stale", { account: "x" }, asOf);
    expect(cache.get("stale")).toBeUndefined();
    cache.set("fresh", { account: "x" }, cache.generation);
    expect(cache.get("fresh")).toEqual({ account: "x" });
  }
});

describe("client IP behind proxies", () => {
  const trusted = new Set(["127.0.0.1", "10.0.0.2"]);
  test("X-Forwarded-For counts only from a trusted peer, nearest untrusted hop first", () => {
    expect(clientIp("203.0.113.9", "1.2.3.4", trusted)).toBe("203.0.113.9");
    expect(clientIp("127.0.0.1", "1.2.3.4", trusted)).toBe("1.2.3.4");
    expect(clientIp("::ffff:127.0.0.1", "6.6.6.6, 1.2.3.4, 10.0.0.2", trusted)).toBe("1.2.3.4");
    expect(clientIp("127.0.0.1", null, trusted)).toBe("127.0.0.1");
    expect(clientIp(undefined, "1.2.3.4", trusted)).toBe("unknown");
  });
});
