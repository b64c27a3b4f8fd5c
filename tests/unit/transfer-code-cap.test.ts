import { expect, test } from "bun:test";
import { join } from "node:path";
import { hashTransferCode, normalizeTransferCode } from "../../services/transfer/code.ts";
import { createCode, maxActiveCodes } from "../../services/transfer/create-code.ts";
import type { Deps } from "../../services/transfer/deps.ts";
import { openRepo } from "../../services/transfer/repo.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { tempDir } from "../helpers/infra.ts";

// The worst interleaving of concurrent creates, forced: every create has stored its code before any of
// them looks at the account's live codes (tests/api/transfer.test.ts runs the same burst over the API).
test("20 creates that all insert before any looks: exactly the newest 5 stay live, and they are codes that were answered", async () => {
  const store = createSqliteStore(join(tempDir("code-cap"), "transfer.sqlite"));
  const repo = await openRepo(store);
  const creates = 20;
  let inserted = 0;
  const { promise: allInserted, resolve } = Promise.withResolvers<void>();
  const { insert, find } = repo.codes;
  repo.codes.insert = async (...args) => {
    await insert.apply(repo.codes, args);
    if (++inserted === creates) resolve();
  };
  repo.codes.find = async (...args) => {
    await allInserted;
    return find.apply(repo.codes, args);
  };
  const deps = { repo, now: () => new Date(), secret: "test-transfer-secret-0123456789abcdef" } as unknown as Deps;
  const tenant = { envId: "prj_test:stage", settings: { transferCodeTtlSeconds: 600 } } as unknown as Tenant;
  const msg = { tenant, session: { accountId: "acc_test" }, body: {} } as unknown as Parameters<typeof createCode>[1];
  const answered = await Promise.all(Array.from({ length: creates }, () => createCode(deps, msg)));

  const stored = await find.call(
    repo.codes,
    { accountId: "acc_test" },
    { sort: { field: "createdOrder", direction: -1 } },
  );
  expect(stored).toHaveLength(creates);
  expect(stored.filter((c) => c.status === "active").length).toBe(maxActiveCodes);
  expect(stored.slice(0, maxActiveCodes).map((c) => c.status)).toEqual(Array(maxActiveCodes).fill("active"));
  const handedOut = new Set(
    answered.map((a) => hashTransferCode(deps.secret, tenant.envId, normalizeTransferCode(a.transferCode)!)),
  );
  expect(handedOut.size).toBe(creates);
  expect(stored.filter((c) => c.status === "active").every((c) => handedOut.has(c._id))).toBe(true);
  await store.close();
});
