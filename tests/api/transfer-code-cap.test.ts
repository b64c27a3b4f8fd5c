import { expect, test } from "bun:test";
import { join } from "node:path";
import type { TransferCodeDoc } from "../../services/transfer/repo.ts";
import { createMongoStore } from "../../shared/store/mongo.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, startDistributed, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mongo } from "../helpers/infra.ts";

/** Each deployment with a second gateway copy (distributed: and two transfer copies) and its transfer store. */
interface Setup {
  d: Deployment;
  other: Deployment;
  openStore(): Promise<Store>;
  stop(): Promise<void>;
}

async function embedded(): Promise<Setup> {
  const d = await startEmbedded();
  return {
    d,
    other: d,
    openStore: async () => createSqliteStore(join(d.dataDir, "transfer.sqlite")),
    stop: () => d.stop(),
  };
}

async function distributed(): Promise<Setup> {
  const d = await startDistributed({ copies: { gateway: 2, transfer: 2 } });
  const other: Deployment = { ...d, request: (path, init) => fetch(`${d.bases[1]}${path}`, init) };
  return { d, other, openStore: async () => createMongoStore((await mongo()).url, d.db), stop: () => d.stop() };
}

/** A client address of its own per consume, so no guess limit is near. */
const newClient = () => `10.${Array.from(crypto.getRandomValues(new Uint8Array(3))).join(".")}`;

forEachDeployment("the transfer-code cap under concurrency", { start: { embedded, distributed } }, ({ setup: s }) => {
  test("20 concurrent creates on one account through two gateway copies: exactly the 5 newest stay live, each one handed out", async () => {
    const t = await newTenant(s.d);
    // One account's 20 requests at once: more than the 8 it may have in flight per gateway copy.
    const limits = { rateLimits: { accountConcurrentRequests: 100 } };
    expect((await admin(s.d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, limits)).status).toBe(200);
    const a = await newAccount(s.d, t.key);
    const create = (i: number) =>
      call(i % 2 ? s.other : s.d, "POST", `/api/v1/accounts/${a.accountId}/transfer-codes`, {
        key: t.key,
        session: a.session,
      });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i)));
    expect(answers.map((x) => x.status)).toEqual(Array(20).fill(201));

    const store = await s.openStore();
    const stored = await (await store.collection<TransferCodeDoc>("transferCodes")).find({ accountId: a.accountId });
    await store.close();
    expect(stored.filter((c) => c.status === "active").length).toBe(5);
    // The live ones are the newest five the store holds.
    const newest = stored.sort((x, y) => (x.createdOrder! < y.createdOrder! ? 1 : -1)).slice(0, 5);
    expect(newest.map((c) => c.status)).toEqual(Array(5).fill("active"));
    // And they are codes clients were answered: of the 20 answered, exactly 5 can be spent.
    const consume = (transferCode: string) =>
      call(s.d, "POST", "/api/v1/account-transfer-codes/consume", {
        key: t.key,
        headers: { "x-forwarded-for": newClient() },
        body: { transferCode },
      });
    const outcomes = await Promise.all(answers.map((x) => consume(x.body.transferCode)));
    expect(outcomes.filter((x) => x.status === 200).length).toBe(5);
    expect(outcomes.filter((x) => x.status === 400 && x.body.error.code === "transfer_code_invalid").length).toBe(15);
  });
});
