import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { openIdempotency } from "../../shared/serving/idempotency.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { admin, type CallOptions, call, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, deployment } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mint, newSigner, startKeyServer, testProviders } from "../helpers/identity-providers.ts";
import { mongo, tempDir } from "../helpers/infra.ts";
import { capturingLogger } from "../helpers/kept.ts";

/**
 * docs/api-rules.md#idempotent-retries: what an Idempotency-Key record keeps. A record holds only what cannot be asked
 * again (ids, versions, a sealed session token), a conflict is never recorded, keys of the routes
 * without a session are secrets of at least 128 bits, and a deleted account's records are erased.
 */
const keyed = (key: string, o: CallOptions = {}): CallOptions => ({
  ...o,
  headers: { ...o.headers, "idempotency-key": key },
});
const strongKey = () => crypto.randomUUID();
const big = (bytes: number) => ({ blob: "x".repeat(bytes) });

type StoredRecord = { _id: string; accountId?: string | null; reply?: string | null; state: string };

/** Every idempotency record the deployment's stores hold, as stored. */
async function storedRecords(d: Deployment): Promise<{ doc: StoredRecord; bytes: number }[]> {
  if (d.name === "embedded") {
    const dir = (d as Deployment & { dataDir: string }).dataDir;
    const rows: { doc: string }[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".sqlite"))) {
      const db = new Database(join(dir, file), { readonly: true });
      try {
        const table = db
          .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'idempotencyKeys'")
          .get();
        if (table) rows.push(...(db.query("SELECT doc FROM idempotencyKeys").all() as { doc: string }[]));
      } finally {
        db.close();
      }
    }
    return rows.map((r) => ({ doc: JSON.parse(r.doc) as StoredRecord, bytes: r.doc.length }));
  }
  const client = await new MongoClient((await mongo()).url).connect();
  try {
    const docs = await client
      .db((d as Deployment & { db: string }).db)
      .collection("idempotencyKeys")
      .find()
      .toArray();
    return docs.map((doc) => ({ doc: doc as unknown as StoredRecord, bytes: JSON.stringify(doc).length }));
  } finally {
    await client.close();
  }
}
const totalBytes = async (d: Deployment) => (await storedRecords(d)).reduce((n, r) => n + r.bytes, 0);

/** Polls until `check` holds (cleanup runs on a queue), for at most 20 s. */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await Bun.sleep(100);
  }
}

const keyServer = startKeyServer();

forEachDeployment("idempotency records", ({ name }) => {
  test("a keyed 409 conflict stores nothing; a retry with its key asks again and gets the current save", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const saveId = `conflict-${crypto.randomUUID()}`;
    const path = `/api/v1/saves/${saveId}/sync`;
    expect(
      (await call(d, "POST", path, { key, body: { baseVersion: 0, externalUserId: "u", state: big(200_000) } })).status,
    ).toBe(200);
    const before = await totalBytes(d);
    for (let i = 0; i < 5; i++) {
      const stale = await call(d, "POST", path, keyed(strongKey(), { key, body: { baseVersion: 999 } }));
      expect(stale.status).toBe(409);
      expect(stale.body.save.version).toBe(1);
    }
    const perConflict = ((await totalBytes(d)) - before) / 5;
    console.log(`[${name}] bytes stored per keyed 409: ${perConflict}`);
    expect(perConflict).toBe(0);

    const retryKey = strongKey();
    expect((await call(d, "POST", path, keyed(retryKey, { key, body: { baseVersion: 999 } }))).status).toBe(409);
    expect((await call(d, "POST", path, { key, body: { baseVersion: 1, state: { n: 2 } } })).status).toBe(200);
    const again = await call(d, "POST", path, keyed(retryKey, { key, body: { baseVersion: 999 } }));
    expect(again.status).toBe(409);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.save).toMatchObject({ version: 2, state: { n: 2 } });
  });

  test("records stay small whatever the answer's size; a replay gives the same ids and token and the current state", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const createKey = strongKey();
    const body = { accountData: big(200_000), slot: { slotId: "s", data: big(200_000) } };
    const first = await call(d, "POST", "/api/v1/accounts", keyed(createKey, { key, body }));
    expect(first.status).toBe(201);
    const acc = { accountId: first.body.accountId as string, session: first.body.accountSessionToken as string };
    const as = (o: CallOptions = {}) => ({ key, session: acc.session, ...o });
    const slotKey = strongKey();
    const slot = await call(
      d,
      "POST",
      `/api/v1/accounts/${acc.accountId}/slots`,
      keyed(slotKey, as({ body: { slotId: "t", data: big(200_000) } })),
    );
    expect(slot.status).toBe(201);
    const slotAgain = await call(
      d,
      "POST",
      `/api/v1/accounts/${acc.accountId}/slots`,
      keyed(slotKey, as({ body: { slotId: "t", data: big(200_000) } })),
    );
    expect(slotAgain.status).toBe(201);
    expect(slotAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(slotAgain.body).toEqual(slot.body);
    const archiveKey = strongKey();
    const archived = await call(
      d,
      "POST",
      `/api/v1/accounts/${acc.accountId}/slots/t/archive`,
      keyed(archiveKey, as()),
    );
    expect(archived.status).toBe(200);
    const saveKey = strongKey();
    const savePath = `/api/v1/saves/small-${crypto.randomUUID()}/sync`;
    const save = await call(
      d,
      "POST",
      savePath,
      keyed(saveKey, { key, body: { baseVersion: 0, externalUserId: "u", state: big(200_000) } }),
    );
    expect(save.status).toBe(200);

    const largest = Math.max(...(await storedRecords(d)).map((r) => r.bytes));
    console.log(`[${name}] largest idempotency record: ${largest} bytes`);
    expect(largest).toBeLessThan(1024);

    // Replays: the same ids and token, the state as it is now.
    expect(
      (
        await call(
          d,
          "POST",
          `/api/v1/accounts/${acc.accountId}/data/sync`,
          as({ body: { baseVersion: 1, accountData: { coins: 7 } } }),
        )
      ).status,
    ).toBe(200);
    const again = await call(d, "POST", "/api/v1/accounts", keyed(createKey, { key, body }));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toMatchObject({
      accountId: acc.accountId,
      accountSessionToken: acc.session,
      account: { version: 2, accountData: { coins: 7 } },
    });
    expect(again.body.slot).toMatchObject({ slotId: "s", version: 1 });
    expect(again.body.syncPolicy).toEqual(first.body.syncPolicy);
    const read = await call(d, "GET", `/api/v1/accounts/${acc.accountId}`, as());
    expect(read.status).toBe(200);

    // The slot it created is archived now: the replay says so rather than show a stale copy.
    const slotLater = await call(
      d,
      "POST",
      `/api/v1/accounts/${acc.accountId}/slots`,
      keyed(slotKey, as({ body: { slotId: "t", data: big(200_000) } })),
    );
    expect(slotLater.body.error.code).toBe("slot_archived");
    const archiveAgain = await call(
      d,
      "POST",
      `/api/v1/accounts/${acc.accountId}/slots/t/archive`,
      keyed(archiveKey, as()),
    );
    expect(archiveAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(archiveAgain.body).toEqual(read.body);
    const saveAgain = await call(
      d,
      "POST",
      savePath,
      keyed(saveKey, { key, body: { baseVersion: 0, externalUserId: "u", state: big(200_000) } }),
    );
    expect(saveAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(saveAgain.body).toEqual(save.body);
  });

  test("on routes without a session a key of less than 128 bits is 400 and changes nothing; session routes take any key", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const owner = await call(d, "POST", "/api/v1/accounts", keyed(strongKey(), { key, body: {} }));
    expect(owner.status).toBe(201);
    const saveId = `weak-${crypto.randomUUID()}`;
    const paths: [string, unknown][] = [
      ["/api/v1/accounts", {}],
      ["/api/v1/accounts/auth/session", { provider: "firebase", token: "t" }],
      ["/api/v1/account-transfer-codes/consume", { transferCode: "ABCD-EFGH" }],
      [`/api/v1/saves/${saveId}/sync`, { baseVersion: 0, externalUserId: "u" }],
    ];
    for (const weak of ["abc", "key-1", "0123456789abcdef0123456789abcde"]) {
      for (const [path, body] of paths) {
        const refused = await call(d, "POST", path, keyed(weak, { key, body }));
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe("invalid_request");
        expect(refused.body.error.details.issues[0]).toMatchObject({
          path: "header.Idempotency-Key",
          message: expect.stringContaining("128 bits"),
        });
      }
    }
    expect((await call(d, "GET", `/api/v1/saves/${saveId}`, { key })).status).toBe(404);
    // A UUID v4 and 32 hex digits are enough.
    for (const strong of [crypto.randomUUID(), "0123456789abcdef0123456789abcdef"]) {
      expect(
        (
          await call(
            d,
            "POST",
            `/api/v1/saves/${saveId}-${strong.length}/sync`,
            keyed(strong, { key, body: { baseVersion: 0, externalUserId: "u" } }),
          )
        ).status,
      ).toBe(200);
    }
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
    expect(
      (
        await acc.call(
          "POST",
          "/api/v1/accounts/{acc}/slots/s/sync",
          keyed("k", { body: { baseVersion: 1, data: { n: 1 } } }),
        )
      ).status,
    ).toBe(200);
  });

  test("a replay after the account is deleted is 410 without a token, and cleanup erases the account's records", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const createKey = strongKey();
    const created = await call(d, "POST", "/api/v1/accounts", keyed(createKey, { key, body: {} }));
    const acc = { accountId: created.body.accountId as string, session: created.body.accountSessionToken as string };
    const code = await call(
      d,
      "POST",
      `/api/v1/accounts/${acc.accountId}/transfer-codes`,
      keyed("code-1", { key, session: acc.session, body: {} }),
    );
    expect(code.status).toBe(201);
    const consumeKey = strongKey();
    const consumeBody = { transferCode: code.body.transferCode };
    const consumed = await call(
      d,
      "POST",
      "/api/v1/account-transfer-codes/consume",
      keyed(consumeKey, { key, body: consumeBody }),
    );
    expect(consumed.status).toBe(200);
    const consumeAgain = await call(
      d,
      "POST",
      "/api/v1/account-transfer-codes/consume",
      keyed(consumeKey, { key, body: consumeBody }),
    );
    expect(consumeAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(consumeAgain.body.accountSessionToken).toBe(consumed.body.accountSessionToken);
    const owned = (await storedRecords(d)).filter((r) => r.doc.accountId === acc.accountId);
    expect(owned.length).toBeGreaterThanOrEqual(3);

    expect((await call(d, "DELETE", `/api/v1/accounts/${acc.accountId}`, { key, session: acc.session })).status).toBe(
      200,
    );
    for (const [path, k, body] of [
      ["/api/v1/accounts", createKey, {}],
      ["/api/v1/account-transfer-codes/consume", consumeKey, consumeBody],
    ] as const) {
      const replay = await call(d, "POST", path, keyed(k, { key, body }));
      expect(replay.status).toBe(410);
      expect(replay.body.error.code).toBe("account_deleted");
      expect(JSON.stringify(replay.body)).not.toContain(acc.session);
      expect(JSON.stringify(replay.body)).not.toContain(consumed.body.accountSessionToken);
    }
    const left = await eventually(
      async () =>
        (await storedRecords(d)).filter(
          (r) => r.doc.accountId === acc.accountId || owned.some((o) => o.doc._id === r.doc._id && o.doc.reply),
        ),
      (l) => l.filter((r) => r.doc.reply).length === 0,
    );
    expect(left.filter((r) => r.doc.reply)).toEqual([]);
    expect(left.filter((r) => r.doc.accountId === acc.accountId)).toEqual([]);
    // And after cleanup, still no token for the old key.
    const late = await call(d, "POST", "/api/v1/accounts", keyed(createKey, { key, body: {} }));
    expect(late.status).toBe(410);
  });

  test("a provider sign-in's replay gives its session while it lives: 401 once revoked, 410 once the account is deleted", async () => {
    const d = await deployment(name);
    const t = await newTenant(d);
    const signer = await newSigner("RS256");
    const jwksUrl = keyServer.publish(`/idem/${t.projectId}`, [signer]);
    const set = await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/environments/stage/auth-providers/firebase`, {
      enabled: true,
      ...testProviders.firebase.settings,
      jwksUrl,
    });
    expect(set.status).toBe(200);
    const sub = `user-${crypto.randomUUID()}`;
    const exchange = async (k: string, token: string) =>
      call(d, "POST", "/api/v1/accounts/auth/session", keyed(k, { key: t.key, body: { provider: "firebase", token } }));

    const firstKey = strongKey();
    const firstToken = await mint("firebase", signer, sub);
    const first = await exchange(firstKey, firstToken);
    expect(first.status).toBe(200);
    const again = await exchange(firstKey, firstToken);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);

    const view = await admin(d, "GET", `/admin/v1/accounts/${first.body.accountId}`);
    expect(
      (
        await admin(
          d,
          "DELETE",
          `/admin/v1/accounts/${first.body.accountId}/sessions/${view.body.sessions[0].sessionId}`,
        )
      ).status,
    ).toBe(200);
    const revoked = await exchange(firstKey, firstToken);
    expect(revoked.status).toBe(401);
    expect(JSON.stringify(revoked.body)).not.toContain(first.body.accountSessionToken);

    const secondKey = strongKey();
    const secondToken = await mint("firebase", signer, sub, { jti: crypto.randomUUID() });
    const second = await exchange(secondKey, secondToken);
    expect(second.body).toMatchObject({ accountId: first.body.accountId, isNewAccount: false });
    const session = { key: t.key, session: second.body.accountSessionToken };
    expect((await call(d, "DELETE", `/api/v1/accounts/${first.body.accountId}`, session)).status).toBe(200);
    const gone = await exchange(secondKey, secondToken);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe("account_deleted");
    expect(JSON.stringify(gone.body)).not.toContain(second.body.accountSessionToken);
  });
});

test("keyed records per account or client address and UTC day stop at the cap; past it requests still run, unrecorded, logged once", async () => {
  const store = createSqliteStore(join(tempDir("idem-cap"), "cap.sqlite"));
  const lines: string[] = [];
  const idempotency = await openIdempotency(store, capturingLogger(lines), () => new Date(), { dailyCap: 3 });
  let runs = 0;
  const handler = idempotency.wrap("syncSlot", async () => ({ status: "accepted", n: ++runs }));
  const tenant = { envId: "env_1", keyId: "key_1" } as never;
  const msg = { tenant, session: { accountId: "acc_1", sessionId: "ses_1" } as never, params: {}, body: {} };
  for (let i = 0; i < 5; i++) await handler(msg, { headers: { "idempotency-key": `k-${i}` } } as never);
  expect(runs).toBe(5);
  const records = await (await store.collection<StoredRecord>("idempotencyKeys")).find({});
  expect(records.filter((r) => r.state === "done")).toHaveLength(3);
  // The fifth key was not recorded: it runs again.
  await handler(msg, { headers: { "idempotency-key": "k-4" } } as never);
  expect(runs).toBe(6);
  expect(lines.filter((l) => l.includes("idempotency cap reached"))).toHaveLength(1);
  expect(lines.join("\n")).not.toContain("k-4");
  // Concurrent keys of another scope: the store's increment counts each once, so exactly 3 are kept.
  const other = { ...msg, session: { accountId: "acc_2", sessionId: "ses_2" } as never };
  await Promise.all(
    Array.from({ length: 8 }, (_, i) => handler(other, { headers: { "idempotency-key": `c-${i}` } } as never)),
  );
  const all = await (await store.collection<StoredRecord>("idempotencyKeys")).find({});
  expect(all.filter((r) => r.state === "done" && r.accountId === "acc_2")).toHaveLength(3);
  // Without a session the cap is the client address's (an IPv6 /64 as one): one past it leaves another's kept; no log names an address.
  const from = (ip: string) => ({ tenant, client: { ip }, params: {}, body: {} });
  for (let i = 0; i < 4; i++)
    await handler(from(`2001:db8:5:6::${i + 1}`), { headers: { "idempotency-key": `a-${i}` } } as never);
  await handler(from("198.51.100.9"), { headers: { "idempotency-key": "b-0" } } as never);
  const sessionless = (await (await store.collection<StoredRecord>("idempotencyKeys")).find({})).filter(
    (r) => r.state === "done" && !r.accountId,
  );
  expect(sessionless).toHaveLength(4);
  expect(lines.filter((l) => l.includes("idempotency cap reached"))).toHaveLength(3);
  expect(lines.join("\n")).not.toMatch(/2001:db8|198\.51/);
  await store.close();
});
