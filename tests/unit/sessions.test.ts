import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { resolveSession } from "../../services/accounts/sessions/resolve-session.ts";
import { openSession } from "../../services/accounts/sessions/sessions.ts";
import type { Deps } from "../../services/accounts/deps.ts";
import { service as accounts } from "../../services/accounts/service.ts";
import { contextFor } from "../../shared/process/service-module.ts";
import { createLocalBus } from "../../shared/bus/local.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { readEnv } from "../../shared/process/env.ts";
import { createLogger } from "../../shared/process/log.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { tempDir } from "../helpers/infra.ts";

describe("device sessions record their last use at most once a minute", () => {
  const log = createLogger({ test: "sessions" });
  const bus = createLocalBus(log);
  const store = createSqliteStore(join(tempDir("sessions"), "accounts.sqlite"));
  let clock = Date.parse("2026-01-01T00:00:00.000Z");
  let deps: Deps;
  beforeAll(async () => {
    deps = await accounts.start(contextFor("accounts", { bus, store, env: readEnv({}), plans: defaultPlans, log, now: () => new Date(clock) }));
  });
  afterAll(async () => {
    await bus.close();
    await store.close();
  });

  test("a resolve within the minute writes nothing; the first after it writes the time once", async () => {
    const account = { _id: "acc_lastuse", envId: "prj_x:stage" };
    await deps.repo.accounts.insert({ ...account, status: "active", accountData: "{}", version: 1, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", snapshotSeq: 1 });
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
});
