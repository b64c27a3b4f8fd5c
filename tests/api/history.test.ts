import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { SnapshotDoc } from "../../services/accounts/repo.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { createMongoStore } from "../../shared/store/mongo.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import {
  adminToken,
  type Deployment,
  deployment,
  type startDistributed,
  startEmbedded,
} from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mint, newSigner, startKeyServer, testProviders } from "../helpers/identity-providers.ts";
import { mongo, npxEnv, tempDir, trackChild } from "../helpers/infra.ts";
import { freePort } from "../helpers/ports.ts";
import { readUntil } from "../helpers/wait.ts";

type Account = Awaited<ReturnType<typeof newAccount>>;

const root = join(import.meta.dir, "..", "..");
const keyServer = startKeyServer();
const accountAdmin = (accountId: string, path = "") => `/admin/v1/accounts/${accountId}${path}`;
const slotSync = (acc: Account, slotId: string, baseVersion: number, data: unknown) =>
  acc.call("POST", `/api/v1/accounts/{acc}/slots/${slotId}/sync`, { body: { baseVersion, data } });
const versions = (list: { snapshots: { version: number }[] }) => list.snapshots.map((s) => s.version);
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
/** Every snapshot the export says is stored for one slot id ("" for accountData). */
const exportedVersions = (exp: { history: { slotId?: string; version: number }[] }, slotId = "") =>
  exp.history.filter((h) => (h.slotId ?? "") === slotId).map((h) => h.version);

forEachDeployment("history, restore and export", { tenant: true }, ({ name, d, tenant }) => {
  test("slot history lists every sync of self_hosted, newest first, with the stored payload's size", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "main", slotInfo: { lvl: 1 }, data: { n: "x" } } });
    for (let n = 2; n <= 4; n++) expect((await slotSync(acc, "main", n - 1, { n: "x".repeat(n) })).status).toBe(200);
    const listed = await admin(d, "GET", accountAdmin(acc.accountId, "/slots/main/history"));
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      accountId: acc.accountId,
      slotId: "main",
      snapshots: [4, 3, 2, 1].map((n) => ({
        version: n,
        createdAt: expect.any(String),
        sizeBytes: bytes({ slotInfo: { lvl: 1 }, data: { n: "x".repeat(n) } }),
      })),
    });
    const times = listed.body.snapshots.map((s: { createdAt: string }) => s.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  test("restore writes the old content as a new version, keeps history, and the stale device gets 409 with it", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "main", slotInfo: { lvl: 1 }, data: { n: 1 } } });
    await slotSync(acc, "main", 1, { n: 2 });
    await slotSync(acc, "main", 2, { n: 3 });
    const restored = await admin(d, "POST", accountAdmin(acc.accountId, "/slots/main/restore"), { version: 1 });
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({
      slotId: "main",
      slotInfo: { lvl: 1 },
      data: { n: 1 },
      version: 4,
      status: "active",
      updatedAt: expect.any(String),
    });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toEqual(restored.body);
    // The restore is a restore point itself; nothing before it changed.
    const listed = await admin(d, "GET", accountAdmin(acc.accountId, "/slots/main/history"));
    expect(versions(listed.body)).toEqual([4, 3, 2, 1]);
    expect(listed.body.snapshots[0].sizeBytes).toBe(listed.body.snapshots[3].sizeBytes);

    const stale = await slotSync(acc, "main", 3, { n: 99 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      status: "conflict",
      version: 4,
      slot: { version: 4, data: { n: 1 } },
      details: { serverSlot: { data: { n: 1 } }, clientSlot: { data: { n: 99 } } },
    });
    expect((await slotSync(acc, "main", 4, { n: 5 })).body).toMatchObject({ status: "accepted", version: 5 });
  });

  test("a version that is not kept, an unknown slot or account is 404 and changes nothing", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "main", data: { n: 1 } } });
    const unknownVersion = await admin(d, "POST", accountAdmin(acc.accountId, "/slots/main/restore"), { version: 2 });
    expect([unknownVersion.status, unknownVersion.body.error.code]).toEqual([404, "not_found"]);
    expect((await admin(d, "POST", accountAdmin(acc.accountId, "/restore"), { version: 7 })).status).toBe(404);
    for (const path of ["/slots/nope/history", "/slots/nope/restore"]) {
      const r = await admin(
        d,
        path.endsWith("restore") ? "POST" : "GET",
        accountAdmin(acc.accountId, path),
        path.endsWith("restore") ? { version: 1 } : undefined,
      );
      expect([r.status, r.body.error.code]).toEqual([404, "not_found"]);
    }
    for (const path of ["/history", "/slots/main/history", "/export"])
      expect((await admin(d, "GET", accountAdmin("acc_missing1", path))).status).toBe(404);
    expect((await admin(d, "POST", accountAdmin("acc_missing1", "/restore"), { version: 1 })).status).toBe(404);
    expect((await admin(d, "POST", accountAdmin(acc.accountId, "/slots/main/restore"), { version: 0 })).status).toBe(
      400,
    );
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toMatchObject({
      version: 1,
      data: { n: 1 },
    });
  });

  test("account data: history newest first, restore as a new version, the stale device gets 409", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { coins: 1 }, slot: { slotId: "s", data: {} } });
    const patch = (baseVersion: number, accountDataPatch: unknown) =>
      acc.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion, accountDataPatch } });
    expect((await patch(1, { coins: 20 })).status).toBe(200);
    expect((await patch(2, { coins: 300 })).status).toBe(200);
    const listed = await admin(d, "GET", accountAdmin(acc.accountId, "/history"));
    expect(listed.body).toEqual({
      accountId: acc.accountId,
      snapshots: [300, 20, 1].map((coins, i) => ({
        version: 3 - i,
        createdAt: expect.any(String),
        sizeBytes: bytes({ accountData: { coins } }),
      })),
    });
    const restored = await admin(d, "POST", accountAdmin(acc.accountId, "/restore"), { version: 1 });
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({
      accountId: acc.accountId,
      accountData: { coins: 1 },
      version: 4,
      slots: [expect.objectContaining({ slotId: "s" })],
    });
    expect(versions((await admin(d, "GET", accountAdmin(acc.accountId, "/history"))).body)).toEqual([4, 3, 2, 1]);
    const stale = await patch(3, { coins: 9 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ version: 4, account: { version: 4, accountData: { coins: 1 } } });
  });

  test("an archived slot's history can be read but restoring it is 409 slot_archived; a deleted account is 410", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "old", data: { v: 1 } } });
    await slotSync(acc, "old", 1, { v: 2 });
    await acc.call("POST", "/api/v1/accounts/{acc}/slots/old/archive");
    expect(versions((await admin(d, "GET", accountAdmin(acc.accountId, "/slots/old/history"))).body)).toEqual([2, 1]);
    const archived = await admin(d, "POST", accountAdmin(acc.accountId, "/slots/old/restore"), { version: 1 });
    expect(archived.status).toBe(409);
    expect(archived.body.error).toMatchObject({ code: "slot_archived", details: { slotId: "old" } });
    // A new slot with the id is what the id names now.
    await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "old", data: { v: "new" } } });
    expect(versions((await admin(d, "GET", accountAdmin(acc.accountId, "/slots/old/history"))).body)).toEqual([1]);

    expect((await acc.call("DELETE", "/api/v1/accounts/{acc}")).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/restore", { version: 1 }],
      ["POST", "/slots/old/restore", { version: 1 }],
      ["GET", "/history", undefined],
    ] as const) {
      const r = await admin(d, method, accountAdmin(acc.accountId, path), body);
      expect([r.status, r.body.error.code]).toEqual([410, "account_deleted"]);
    }
  });

  test("export: the account, every slot generation, history, sessions without tokens, links", async () => {
    const signer = await newSigner("RS256");
    const jwksUrl = keyServer.publish(`/history-export/${name}/${tenant.projectId}`, [signer]);
    const set = await admin(
      d,
      "PUT",
      `/admin/v1/projects/${tenant.projectId}/environments/stage/auth-providers/firebase`,
      { enabled: true, ...testProviders.firebase.settings, jwksUrl },
    );
    expect(set.status).toBe(200);

    const acc = await newAccount(d, tenant.key, {
      playerRef: "player-7",
      accountData: { coins: 5 },
      slot: { slotId: "a", slotInfo: { name: "A" }, data: { hp: 1 } },
    });
    await slotSync(acc, "a", 1, { hp: 2 });
    await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "b", data: { kept: "archived" } } });
    await acc.call("POST", "/api/v1/accounts/{acc}/slots/b/archive");
    await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "c", data: { erased: "gone" } } });
    await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/c");
    const subject = `history-export-${crypto.randomUUID()}`;
    const linked = await call(d, "POST", "/api/v1/accounts/auth/session", {
      key: tenant.key,
      headers: {
        "x-service-account-id": acc.accountId,
        "x-service-account-session": acc.session,
        "x-forwarded-for": "10.9.8.7",
      },
      body: { provider: "firebase", token: await mint("firebase", signer, subject) },
    });
    expect(linked.status).toBe(200);

    // The deleted slot's history is erased by the cleanup worker, soon after the answer.
    const exported = await readUntil(
      () => admin(d, "GET", accountAdmin(acc.accountId, "/export")),
      (r) => r.status !== 200 || exportedVersions(r.body, "c").length === 0,
    );
    expect(exported.status).toBe(200);
    const body = exported.body;
    expect(body.exportedAt).toEqual(expect.any(String));
    expect(body.account).toMatchObject({
      accountId: acc.accountId,
      projectId: tenant.projectId,
      environment: "stage",
      status: "active",
      playerRef: "player-7",
      accountData: { coins: 5 },
      version: 1,
    });
    // Oldest first; records made in one millisecond may come in either order.
    for (const list of [body.slots, body.history, body.sessions])
      expect(list.map((r: { createdAt: string }) => r.createdAt)).toEqual(
        list.map((r: { createdAt: string }) => r.createdAt).sort(),
      );
    const byKey = (list: { slotId?: string; version: number }[]): unknown[] =>
      list.toSorted((x, y) => `${x.slotId ?? ""}:${x.version}`.localeCompare(`${y.slotId ?? ""}:${y.version}`));
    expect(byKey(body.slots)).toEqual([
      {
        slotId: "a",
        status: "active",
        version: 2,
        slotInfo: { name: "A" },
        data: { hp: 2 },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      {
        slotId: "b",
        status: "archived",
        version: 1,
        slotInfo: {},
        data: { kept: "archived" },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      {
        slotId: "c",
        status: "deleted",
        version: 1,
        slotInfo: {},
        data: {},
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
    expect(byKey(body.history)).toEqual([
      { version: 1, createdAt: expect.any(String), payload: { accountData: { coins: 5 } } },
      { slotId: "a", version: 1, createdAt: expect.any(String), payload: { slotInfo: { name: "A" }, data: { hp: 1 } } },
      { slotId: "a", version: 2, createdAt: expect.any(String), payload: { slotInfo: { name: "A" }, data: { hp: 2 } } },
      { slotId: "b", version: 1, createdAt: expect.any(String), payload: { slotInfo: {}, data: { kept: "archived" } } },
    ]);
    expect(body.sessions.length).toBeGreaterThanOrEqual(1);
    for (const s of body.sessions)
      expect(
        Object.keys(s).every((k) => ["sessionId", "deviceLabel", "createdAt", "lastUsedAt", "revokedAt"].includes(k)),
      ).toBe(true);
    expect(body.sessions).toContainEqual({
      sessionId: expect.stringMatching(/^ses_/),
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
    });
    expect(body.links).toEqual([
      {
        provider: "firebase",
        label: "google.com",
        emailHint: "j***@example.com",
        linkedAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
    ]);

    const text = JSON.stringify(body);
    for (const secret of [acc.session, sha256Hex(acc.session), linked.body.accountSessionToken, subject, "gone"].filter(
      Boolean,
    ))
      expect(text).not.toContain(secret);
  });

  test("a large export comes in pages that each fit one bus message; together they hold every record once", async () => {
    const pad = (n: number) => "x".repeat(n);
    const acc = await newAccount(d, tenant.key, {
      accountData: { p: pad(240_000) },
      slot: { slotId: "a", data: { p: pad(240_000) } },
    });
    for (const slotId of ["b", "c"])
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId, data: { p: pad(240_000) } } }))
          .status,
      ).toBe(201);
    const pages: Record<string, any>[] = [];
    let path = accountAdmin(acc.accountId, "/export");
    for (let i = 0; i < 20; i++) {
      const res = await d.request(path, { headers: { authorization: `Bearer ${adminToken}` } });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(text)).toBeLessThan(1_048_576 - 1024);
      pages.push(JSON.parse(text));
      if (!pages.at(-1)!.next) break;
      path = accountAdmin(acc.accountId, `/export?cursor=${encodeURIComponent(pages.at(-1)!.next)}`);
    }
    expect(pages.length).toBeGreaterThan(2);
    const all = <T>(field: string) => pages.flatMap((p) => p[field] as T[]);
    expect(all<{ slotId: string }>("slots").map((x) => x.slotId)).toEqual(["a", "b", "c"]);
    // accountData v1 and each slot's v1: four restore points, each exactly once.
    expect(
      all<{ slotId?: string; version: number }>("history")
        .map((h) => `${h.slotId ?? ""}:${h.version}`)
        .sort(),
    ).toEqual([":1", "a:1", "b:1", "c:1"]);
    expect(all("sessions")).toHaveLength(1);
    expect(pages.every((p) => p.account.accountId === acc.accountId)).toBe(true);
    expect((await admin(d, "GET", accountAdmin(acc.accountId, "/export?cursor=bogus"))).status).toBe(400);
  });
});

describe("pruning (distributed: an expired snapshot written through the store adapter)", () => {
  test("a new accounts copy prunes at start: the expired snapshot goes, the account's own history stays", async () => {
    const d = (await deployment("distributed")) as Awaited<ReturnType<typeof startDistributed>>;
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { accountData: { keep: true } });
    const store = await createMongoStore((await mongo()).url, d.db);
    try {
      const snapshots = await store.collection<SnapshotDoc>("snapshots");
      await snapshots.insert({
        _id: `${acc.accountId}:0`,
        ownerId: acc.accountId,
        accountId: acc.accountId,
        seq: 0,
        version: 1,
        payload: JSON.stringify({ accountData: { expired: true } }),
        createdAt: "2020-01-01T00:00:00.000Z",
        plan: "free",
        expiresAt: "2020-01-02T00:00:00.000Z",
        expiresDay: "2020-01-02",
      });
    } finally {
      await store.close();
    }
    const before = await admin(d, "GET", accountAdmin(acc.accountId, "/export"));
    expect(before.body.history).toHaveLength(2);

    const copy = d.spawn("accounts");
    try {
      const after = await readUntil(
        () => admin(d, "GET", accountAdmin(acc.accountId, "/export")),
        (r) => r.body.history?.length === 1,
        20_000,
      );
      expect(after.body.history).toEqual([
        { version: 1, createdAt: expect.any(String), payload: { accountData: { keep: true } } },
      ]);
    } finally {
      copy.kill();
      await copy.exited;
    }
  });
});

describe("pruning (embedded, with a moved clock)", () => {
  const t0 = Date.parse("2030-01-01T00:30:00.000Z");
  const hours = (h: number) => new Date(t0 + h * 3_600_000);
  let clock = hours(0);
  const dataDir = tempDir("prune");
  const plansFile = join(tempDir("plans"), "plans.json");
  const env = { SAVEPOINT_DATA_DIR: dataDir, SAVEPOINT_PLANS: plansFile };

  test("count and retention decide what is listed and restorable; a restart prunes what is past retention", async () => {
    await Bun.write(
      plansFile,
      JSON.stringify({
        ...defaultPlans,
        self_hosted: { ...defaultPlans.self_hosted, snapshot: { everySeconds: 0, keptPerSlot: 3, retentionDays: 1 } },
      }),
    );
    let d: Deployment = await startEmbedded(env, { now: () => clock });
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: { n: 1 } } });
    const call = (method: string, path: string, body?: unknown) =>
      admin(d, method, accountAdmin(acc.accountId, path), body);
    const sync = (base: number, n: number) => slotSync(acc, "s", base, { n });
    try {
      for (let n = 2; n <= 5; n++) expect((await sync(n - 1, n)).status).toBe(200);
      // keptPerSlot 3: versions 1 and 2 fell out of the count.
      expect(versions((await call("GET", "/slots/s/history")).body)).toEqual([5, 4, 3]);
      expect((await call("POST", "/slots/s/restore", { version: 2 })).status).toBe(404);

      clock = hours(36); // past the 1-day retention of everything written at t0
      expect((await sync(5, 6)).status).toBe(200);
      expect(versions((await call("GET", "/slots/s/history")).body)).toEqual([6]);
      expect(versions((await call("GET", "/history")).body)).toEqual([]);
      const expired = await call("POST", "/slots/s/restore", { version: 5 });
      expect([expired.status, expired.body.error.code]).toEqual([404, "not_found"]);
      // Listed or not, they are still stored until the pruner runs: the export shows every record.
      const stored = (await call("GET", "/export")).body;
      expect(exportedVersions(stored, "s")).toEqual([4, 5, 6]);
      expect(exportedVersions(stored)).toEqual([1]);
    } finally {
      await d.stop();
    }

    // A snapshot written before expiries were recorded must survive pruning, not match every delete.
    const accountsStore = createSqliteStore(join(dataDir, "accounts.sqlite"));
    const snapshots = await accountsStore.collection<SnapshotDoc>("snapshots");
    await snapshots.insert({
      _id: `${acc.accountId}:legacy`,
      ownerId: acc.accountId,
      accountId: acc.accountId,
      seq: 0,
      version: 1,
      payload: '{"accountData":{"legacy":true}}',
      createdAt: hours(0).toISOString(),
    });
    await accountsStore.close();

    clock = hours(54); // 2030-01-03T06:30: t0's snapshots expired a day ago; version 6 expires at 12:30
    d = await startEmbedded(env, { now: () => clock });
    try {
      const pruned = await readUntil(
        () => call("GET", "/export").then((r) => r.body),
        (b) => exportedVersions(b, "s").length === 1,
      );
      expect(exportedVersions(pruned, "s")).toEqual([6]);
      expect(pruned.history.filter((h: { slotId?: string }) => !h.slotId)).toEqual([
        { version: 1, createdAt: hours(0).toISOString(), payload: { accountData: { legacy: true } } },
      ]);
      expect(versions((await call("GET", "/slots/s/history")).body)).toEqual([6]);
      expect((await call("POST", "/slots/s/restore", { version: 6 })).body).toMatchObject({
        version: 7,
        data: { n: 6 },
      });
    } finally {
      await d.stop();
    }
  });
});

describe("the support flow from the CLI, as real processes", () => {
  const token = "history-cli-admin-token-0123456789";
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  let server: Bun.Subprocess<"ignore", "pipe", "pipe">;
  let printed = "";
  beforeAll(async () => {
    server = Bun.spawn([process.execPath, join(root, "services", "main.ts")], {
      env: {
        ...process.env,
        LOG_LEVEL: "warn",
        NATS_URL: "",
        MONGODB_URL: "",
        HOST: "127.0.0.1",
        PORT: String(port),
        SAVEPOINT_DATA_DIR: tempDir("history-cli"),
        SAVEPOINT_ADMIN_TOKEN: token,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    trackChild(server);
    const decoder = new TextDecoder();
    void (async () => {
      for await (const chunk of server.stdout) printed += decoder.decode(chunk, { stream: true });
    })();
    void new Response(server.stderr).text();
    const deadline = Date.now() + 20_000;
    while (!/spk_stage_[A-Za-z0-9]+/.test(printed) || !/listening/.test(printed)) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${printed}`);
      await Bun.sleep(20);
    }
  });
  afterAll(async () => {
    server.kill();
    await server.exited;
  });

  const npx = async (...args: string[]) => {
    const proc = Bun.spawn(["npx", "--no-install", "savepoint", ...args], {
      cwd: root,
      env: npxEnv({ ...(process.env as Record<string, string>), SAVEPOINT_URL: url, SAVEPOINT_ADMIN_TOKEN: token }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([
      proc.exited,
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    return { code, stdout, stderr };
  };

  test("history list prints a table of restore points; history restore brings version N back as a new version", async () => {
    const key = /spk_stage_[A-Za-z0-9]+/.exec(printed)![0];
    const api = (method: string, path: string, body: unknown, session?: string) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          ...(session ? { "x-service-account-session": session } : {}),
        },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const created = await api("POST", "/api/v1/accounts", { slot: { slotId: "main", data: { level: 1 } } });
    const { accountId, accountSessionToken: session } = created;
    for (let level = 2; level <= 3; level++)
      await api(
        "POST",
        `/api/v1/accounts/${accountId}/slots/main/sync`,
        { baseVersion: level - 1, data: { level } },
        session,
      );

    const listed = await npx("history", "list", "--account", accountId, "--slot", "main");
    expect(listed.code).toBe(0);
    const lines = listed.stdout.split("\n");
    expect(lines).toContain("snapshots (3)");
    const header = lines.findIndex((l) => /^\s*version +createdAt +sizeBytes$/.test(l));
    expect(header).toBeGreaterThan(-1);
    const sizes = [3, 2, 1].map((level) => bytes({ slotInfo: {}, data: { level } }));
    expect(lines.slice(header + 1, header + 4).map((l) => l.trim().split(/ +/))).toEqual(
      [3, 2, 1].map((v, i) => [String(v), expect.stringMatching(/^\d{4}-\d\d-\d\dT/), String(sizes[i])]),
    );

    const restored = await npx("history", "restore", "--account", accountId, "--slot", "main", "--version", "1");
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/^\s*version: +4$/m);
    expect(restored.stdout).toMatch(/^\s*level: +1$/m);
    const after = await npx("history", "list", "--account", accountId, "--slot", "main", "--json");
    expect(JSON.parse(after.stdout).snapshots.map((s: { version: number }) => s.version)).toEqual([4, 3, 2, 1]);
    const read = await fetch(`${url}/api/v1/accounts/${accountId}/slots/main`, {
      headers: { authorization: `Bearer ${key}`, "x-service-account-session": session },
    });
    expect(await read.json()).toMatchObject({ version: 4, data: { level: 1 } });

    const gone = await npx("history", "restore", "--account", accountId, "--slot", "main", "--version", "99");
    expect(gone.code).toBe(1);
    // npm may print its own warnings first; the CLI's error is the last line.
    expect(gone.stderr.trim().split("\n").at(-1)).toBe("not_found: Restore point 99 was not found.");
  });
  test("account export --json follows every page into one document", async () => {
    const key = /spk_stage_[A-Za-z0-9]+/.exec(printed)![0];
    const pad = "x".repeat(240_000);
    const created = await fetch(`${url}/api/v1/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ accountData: { pad }, slot: { slotId: "a", data: { pad } } }),
    }).then((r) => r.json() as Promise<any>);
    for (const slotId of ["b", "c"]) {
      await fetch(`${url}/api/v1/accounts/${created.accountId}/slots`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "x-service-account-session": created.accountSessionToken,
          "content-type": "application/json",
        },
        body: JSON.stringify({ slotId, data: { pad } }),
      });
    }
    const exported = await npx("account", "export", "--account", created.accountId, "--json");
    expect(exported.code).toBe(0);
    const doc = JSON.parse(exported.stdout);
    expect(doc.next).toBeUndefined();
    expect(doc.slots.map((x: { slotId: string }) => x.slotId)).toEqual(["a", "b", "c"]);
    expect(doc.history).toHaveLength(4);
    expect(doc.sessions).toHaveLength(1);
  });
});
