import { describe, expect, test } from "bun:test";
import { type Answer, admin, type CallOptions, call, newAccount, newTenant } from "../helpers/api.ts";
import { deployment, startDistributed } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { spawnEmbedded } from "../helpers/embedded-process.ts";
import { tempDir } from "../helpers/infra.ts";
import { filesIn } from "../helpers/kept.ts";
import { freePort } from "../helpers/ports.ts";

/** docs/api-rules.md#idempotent-retries: the same key, credentials and body get the first answer again. */
const keyed = (key: string, o: CallOptions = {}): CallOptions => ({
  ...o,
  headers: { ...o.headers, "idempotency-key": key },
});
const sync = "/api/v1/accounts/{acc}/slots/s/sync";
/** Routes without a session take only keys of 128 bits or more (docs/api-rules.md#idempotent-retries): a UUID v4 is one. */
const secretKey = () => crypto.randomUUID();

/** What a client does after a lost answer: retry with the same key, waiting while the first may still run. */
async function retryUntilAnswered(send: () => Promise<Answer>): Promise<Answer> {
  for (;;) {
    const answer = await send();
    const inProgress = answer.status === 409 && answer.body.error?.details?.reason === "in_progress";
    if (answer.status !== 503 && !inProgress) return answer;
    await Bun.sleep(inProgress ? Number(answer.headers.get("retry-after")) * 1000 : 100);
  }
}

forEachDeployment("idempotent retries", ({ name }) => {
  test("a retried slot sync gets the first answer, marked replayed, and the version rises once", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: { n: 0 } } });
    const first = await acc.call("POST", sync, keyed("retry-1", { body: { baseVersion: 1, data: { n: 1 } } }));
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await acc.call("POST", sync, keyed("retry-1", { body: { baseVersion: 1, data: { n: 1 } } }));
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
      version: 2,
      data: { n: 1 },
    });
  });

  test("the same key with another body is 409 idempotency_key_reused and changes nothing", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: { n: 0 } } });
    expect((await acc.call("POST", sync, keyed("k", { body: { baseVersion: 1, data: { n: 1 } } }))).status).toBe(200);
    const other = await acc.call("POST", sync, keyed("k", { body: { baseVersion: 2, data: { n: 2 } } }));
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("idempotency_key_reused");
    // Another route with the same key is another request too.
    const elsewhere = await acc.call(
      "POST",
      "/api/v1/accounts/{acc}/data/sync",
      keyed("k", { body: { baseVersion: 1, accountData: { a: 1 } } }),
    );
    expect(elsewhere.body.error.code).toBe("idempotency_key_reused");
    const read = await acc.call("GET", "/api/v1/accounts/{acc}");
    expect(read.body).toMatchObject({ version: 1, accountData: {} });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
      version: 2,
      data: { n: 1 },
    });
  });

  test("a conflict answer is not recorded: a retry with its key asks again and gets the current state", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: { n: 0 } } });
    const stale = await acc.call("POST", sync, keyed("stale", { body: { baseVersion: 7, data: { n: 1 } } }));
    expect(stale.status).toBe(409);
    expect((await acc.call("POST", sync, { body: { baseVersion: 1, data: { n: 2 } } })).status).toBe(200);
    const again = await acc.call("POST", sync, keyed("stale", { body: { baseVersion: 7, data: { n: 1 } } }));
    expect(again.status).toBe(409);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.slot).toMatchObject({ version: 2, data: { n: 2 } });
    expect(stale.body.slot).toMatchObject({ version: 1, data: { n: 0 } });
  });

  test("keys belong to one account: another account's same key is its own request", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const a = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
    const b = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
    const body = { baseVersion: 1, data: { x: 1 } };
    expect((await a.call("POST", sync, keyed("shared", { body }))).status).toBe(200);
    const other = await b.call("POST", sync, keyed("shared", { body }));
    expect(other.status).toBe(200);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect((await b.call("GET", "/api/v1/accounts/{acc}/slots/s")).body.version).toBe(2);
  });

  test("a retried account creation gives the same account and a session that works, and no second account", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const body = { playerRef: "p-1", accountData: { coins: 5 } };
    const createKey = secretKey();
    const first = await call(d, "POST", "/api/v1/accounts", keyed(createKey, { key, body }));
    const again = await call(d, "POST", "/api/v1/accounts", keyed(createKey, { key, body }));
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.accountId).toBe(first.body.accountId);
    expect(again.body.accountSessionToken).toBe(first.body.accountSessionToken);
    const view = await admin(d, "GET", `/admin/v1/accounts/${first.body.accountId}`);
    expect(view.body.sessions).toHaveLength(1);
    const read = await call(d, "GET", `/api/v1/accounts/${first.body.accountId}`, {
      key,
      session: again.body.accountSessionToken,
    });
    expect(read.body.accountData).toEqual({ coins: 5 });
  });

  test("concurrent requests with one key: one runs, the rest replay it or are told it is in progress", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        acc.call("POST", sync, keyed("burst", { body: { baseVersion: 1, data: { b: 1 } } })),
      ),
    );
    const ran = answers.filter((a) => a.status === 200 && a.headers.get("idempotent-replayed") === null);
    expect(ran).toHaveLength(1);
    for (const a of answers) {
      if (a.status === 200) expect(a.body).toEqual(ran[0]!.body);
      else expect(a.body.error).toMatchObject({ code: "idempotency_key_reused", details: { reason: "in_progress" } });
    }
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body.version).toBe(2);
  });

  test("a malformed key is 400 and nothing is written", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
    for (const bad of ["k".repeat(256), "tab\there", "caf\u00e9"]) {
      const res = await d.request(`/api/v1/accounts/${acc.accountId}/slots/s/sync`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "x-service-account-session": acc.session,
          "content-type": "application/json",
          "idempotency-key": bad,
        },
        body: JSON.stringify({ baseVersion: 1, data: { bad: true } }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    }
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body.version).toBe(1);
  });

  test("a replayed save sync and transfer code are the first ones", async () => {
    const d = await deployment(name);
    const { key } = await newTenant(d);
    const body = { baseVersion: 0, externalUserId: "u1", state: { hp: 3 } };
    const saveKey = secretKey();
    const first = await call(d, "POST", "/api/v1/saves/idem-save/sync", keyed(saveKey, { key, body }));
    const again = await call(d, "POST", "/api/v1/saves/idem-save/sync", keyed(saveKey, { key, body }));
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const acc = await newAccount(d, key);
    const code = await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes", keyed("code-1", { body: {} }));
    const codeAgain = await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes", keyed("code-1", { body: {} }));
    expect(code.status).toBe(201);
    expect(codeAgain.body.code).toBe(code.body.code);
  });
});

test("idempotency records keep no reply in clear: not the session token a replay gives back", async () => {
  const d = await deployment("embedded");
  const { key } = await newTenant(d);
  const storedKey = secretKey();
  const created = await call(d, "POST", "/api/v1/accounts", keyed(storedKey, { key, body: {} }));
  const token: string = created.body.accountSessionToken;
  expect(
    (await call(d, "POST", "/api/v1/accounts", keyed(storedKey, { key, body: {} }))).body.accountSessionToken,
  ).toBe(token);
  const stored = filesIn((d as unknown as { dataDir: string }).dataDir).join("\n");
  expect(stored).toContain("idempotencyKeys");
  expect(stored).not.toContain(token);
  expect(stored).not.toContain(storedKey);
});

/**
 * The worst moment: the write is committed and the process dies before the answer is recorded or
 * sent. The retry with the same key must get the committed answer, and the version rise once.
 */
describe("a crash between the write and its answer", () => {
  const body = { baseVersion: 1, data: { after: "crash" } };

  test("embedded: the process is killed after the write; after a restart the retry gets the committed answer", async () => {
    const dataDir = tempDir("idem-crash");
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const start = (env: Record<string, string> = {}) => spawnEmbedded(dataDir, port, env);
    const d = {
      name: "embedded" as const,
      request: (path: string, init?: RequestInit) => fetch(`${base}${path}`, init),
      stop: async () => {},
    };
    const first = await start({ SAVEPOINT_FAILPOINT: "idempotency.before-record" });
    const { key } = await newTenant(d);
    // Created without a key: the failpoint fires only on a keyed write.
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
    const lost = await acc.call("POST", sync, keyed("crash-1", { body })).catch((err: Error) => err);
    expect(lost).toBeInstanceOf(Error);
    expect(await first.exited).not.toBe(0);

    const second = await start();
    try {
      const retry = await retryUntilAnswered(() => acc.call("POST", sync, keyed("crash-1", { body })));
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ status: "accepted", version: 2 });
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
        version: 2,
        data: body.data,
      });
      // And from now on the answer is recorded.
      expect((await acc.call("POST", sync, keyed("crash-1", { body }))).body).toEqual(retry.body);
    } finally {
      second.kill();
      await second.exited;
    }
  }, 90_000);

  test("distributed: SIGKILL of the accounts service after its store write; the retry gets the committed answer", async () => {
    const d = await startDistributed({
      services: ["config", "accounts", "gateway"],
      copies: { accounts: 1 },
      env: { SAVEPOINT_BUS_TIMEOUT_MS: "1500" },
    });
    try {
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
      const [healthy] = d.byName.accounts;
      healthy!.kill();
      await healthy!.exited;
      const armed = d.spawn("accounts", { SAVEPOINT_FAILPOINT: "idempotency.before-record" });
      // Until the new copy subscribes, nothing serves the subject: 503.
      const lost = await retryUntilAnswered(() => acc.call("POST", sync, keyed("crash-2", { body })));
      expect(lost.status).toBe(504);
      expect(await armed.exited).not.toBe(0);

      d.spawn("accounts");
      const retry = await retryUntilAnswered(() => acc.call("POST", sync, keyed("crash-2", { body })));
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ status: "accepted", version: 2 });
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
        version: 2,
        data: body.data,
      });
    } finally {
      await d.stop();
    }
  }, 90_000);
});
