import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Deps } from "../../services/accounts/deps.ts";
import { service as accounts } from "../../services/accounts/service.ts";
import { backfillPruneDays } from "../../services/accounts/sessions/backfill-prune-days.ts";
import { keptForever, pruneSessions } from "../../services/accounts/sessions/prune-sessions.ts";
import { resolveSession } from "../../services/accounts/sessions/resolve-session.ts";
import { maxLiveSessions, openSession } from "../../services/accounts/sessions/sessions.ts";
import { createLocalBus } from "../../shared/bus/local.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { contextFor } from "../../shared/process/service-module.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { tempDir } from "../helpers/infra.ts";

describe("device sessions (the accounts service on SQLite, a moved clock)", () => {
  const log = createLogger({ test: "sessions" });
  const bus = createLocalBus(log);
  const store = createSqliteStore(join(tempDir("sessions"), "accounts.sqlite"));
  let clock = Date.parse("2026-01-01T00:00:00.000Z");
  let deps: Deps;
  beforeAll(async () => {
    deps = await accounts.start(
      contextFor("accounts", { bus, store, env: readEnv({}), plans: defaultPlans, log, now: () => new Date(clock) }),
    );
  });
  afterAll(async () => {
    await bus.close();
    await store.close();
  });

  test("a resolve within the minute writes nothing; the first after it writes the time once", async () => {
    const account = { _id: "acc_lastuse", envId: "prj_x:stage" };
    await deps.repo.accounts.insert({
      ...account,
      status: "active",
      accountData: "{}",
      version: 1,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      snapshotSeq: 1,
    });
    const token = await openSession(deps, account, "Pixel 8");
    const input = { envId: account.envId, tokenHash: sha256Hex(token), sessionIdleDays: 180 };
    const lastUse = async () => (await deps.repo.sessions.get(input.tokenHash))!.lastUsedAt;
    expect(await lastUse()).toBe("2026-01-01T00:00:00.000Z");

    clock += 59_000;
    await resolveSession(deps, input);
    expect(await lastUse()).toBe("2026-01-01T00:00:00.000Z");

    clock += 1_000;
    await Promise.all(Array.from({ length: 5 }, () => resolveSession(deps, input)));
    expect(await lastUse()).toBe("2026-01-01T00:01:00.000Z");

    clock += 30_000;
    await resolveSession(deps, input);
    expect(await lastUse()).toBe("2026-01-01T00:01:00.000Z");
    expect((await deps.repo.sessions.get(input.tokenHash))!.deviceLabel).toBe("Pixel 8");
  });

  const newAccount = async (_id: string, status = "active") => {
    const account = { _id, envId: "prj_x:stage" };
    const at = new Date(clock).toISOString();
    await deps.repo.accounts.insert({
      ...account,
      status,
      accountData: "{}",
      version: 1,
      createdAt: at,
      updatedAt: at,
      snapshotSeq: 1,
    } as never);
    return account;
  };

  test("past the cap, the least recently used goes, never the session that asked for the new one", async () => {
    const account = await newAccount("acc_cap");
    const tokens: string[] = [];
    for (let i = 0; i < maxLiveSessions; i++) {
      tokens.push(await openSession(deps, account, `d${i}`));
      clock += 1;
    }
    const asking = (await deps.repo.sessions.get(sha256Hex(tokens[0]!)))!.sessionId;
    await openSession(deps, account, "new", { idleDays: 180, keepSessionId: asking });
    const revoked = await deps.repo.sessions.find({ accountId: account._id });
    expect(revoked.filter((s) => s.revokedAt).map((s) => s.deviceLabel)).toEqual(["d1"]);
  });

  test("sessions stored before prune days get one: revoked ones go 30 days on, a deleted account's and live ones stay", async () => {
    const active = await newAccount("acc_legacy");
    const deleted = await newAccount("acc_legacy_deleted", "deleted");
    const legacy = (id: string, accountId: string, revokedAt?: string) => ({
      _id: `hash_${id}`,
      sessionId: `ses_${id}`,
      accountId,
      envId: active.envId,
      createdAt: "2025-01-01T00:00:00.000Z",
      lastUsedAt: "2025-01-01T00:00:00.000Z",
      ...(revokedAt ? { revokedAt } : {}),
    });
    await deps.repo.sessions.insert(legacy("old_revoked", active._id, "2025-02-01T00:00:00.000Z"));
    await deps.repo.sessions.insert(legacy("recent_revoked", active._id, new Date(clock - 86_400_000).toISOString()));
    await deps.repo.sessions.insert(legacy("live", active._id));
    await deps.repo.sessions.insert(legacy("deleted", deleted._id, "2025-02-01T00:00:00.000Z"));
    expect(await backfillPruneDays(deps)).toBeGreaterThanOrEqual(4);
    expect(await backfillPruneDays(deps)).toBe(0);
    await pruneSessions(deps.repo.sessions, new Date(clock));
    const left = async (id: string) => (await deps.repo.sessions.get(`hash_${id}`))?.pruneDay;
    expect(await left("old_revoked")).toBeUndefined();
    expect(await left("recent_revoked")).toBe(new Date(clock + 29 * 86_400_000).toISOString().slice(0, 10));
    expect(await left("deleted")).toBe(keptForever);
    expect(await left("live")).toBe("2035-01-29");
  });
});
