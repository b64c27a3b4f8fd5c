import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serviceNames } from "../../services/registry.ts";
import { call } from "../helpers/api.ts";
import { adminToken, type Deployment } from "../helpers/deployments.ts";
import { spawnEmbedded } from "../helpers/embedded-process.ts";
import { tempDir, trackChild } from "../helpers/infra.ts";
import { createLoadFleet } from "../helpers/load.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";

// The embedded deployment as real processes: a server under load, `npx savepoint backup` beside it, a
// restore into a fresh folder, and a second server started on what was restored (docs/backups.md).
const root = join(import.meta.dir, "..", "..");

async function cli(args: string[], env: Record<string, string> = {}) {
  const options = { cwd: root, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" } as const;
  const proc = Bun.spawn([process.execPath, join(root, "cli", "main.ts"), ...args], options);
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** SQLite's own check, the rows of each table and the schema versions, read independently of the code under test. */
function inspect(file: string, service = "") {
  const db = new Database(file, { readonly: true });
  try {
    const integrity = db
      .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
      .all()
      .map((r) => r.integrity_check);
    const names = db
      .query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all();
    const tables = Object.fromEntries(
      names.map(({ name }) => [name, db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name}"`).get()!.n]),
    );
    const userVersion = db.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version;
    // Where a store records its schema version (docs/operating.md#upgrading); none in a store from before versions.
    const meta =
      "_meta" in tables
        ? db.query<{ doc: string }, [string]>("SELECT doc FROM _meta WHERE _id = ?").get(`schema:${service}`)
        : null;
    const schemaVersion = meta ? (JSON.parse(meta.doc) as { version: number }).version : 0;
    return { integrity, tables, userVersion, schemaVersion };
  } finally {
    db.close();
  }
}

const embeddedAt = (base: string): Deployment & { bases: string[] } => ({
  name: "embedded",
  bases: [base],
  request: (path, init) => fetch(`${base}${path}`, init),
  stop: async () => {},
});

type Manifest = {
  startedAt: string;
  server: { version: string };
  databases: {
    service: string;
    file: string;
    bytes: number;
    sha256: string;
    schemaVersion: number;
    userVersion: number;
    tables: Record<string, number>;
  }[];
  secrets: { variable: string; file: string; sha256: string }[];
  totalBytes: number;
};

async function stopProcess(proc: Bun.Subprocess) {
  proc.kill();
  await proc.exited;
}

describe("backup and restore of the embedded deployment", () => {
  const dataDir = tempDir("backup-live");
  const backupDir = join(tempDir("backup-out"), "b1");
  const restoredDir = join(tempDir("backup-restored"), "data");
  let manifest: Manifest;

  test("a backup taken under load restores whole: integrity, counts and digests, every write acknowledged before it; the server continues", async () => {
    const port = freePort();
    const server = await spawnEmbedded(dataDir, port);
    const d = embeddedAt(`http://127.0.0.1:${port}`);
    const fleet = await createLoadFleet(d, { clients: 12 });
    const { key } = fleet;
    const first = fleet.clients[0]!;
    // A transfer code made before the backup: consumed after the restore, it proves the transfer secret travelled.
    const code = await call(d, "POST", `/api/v1/accounts/${first.accountId}/transfer-codes`, {
      key,
      session: first.session,
    });
    expect(code.status).toBe(201);

    const run = fleet.start("backup");
    while (fleet.clients.some((c) => c.acked.version < 4)) await Bun.sleep(20);
    const before = fleet.clients.map((c) => structuredClone(c.acked));
    const backup = await cli(["backup", "--out", backupDir, "--json"], { SAVEPOINT_DATA_DIR: dataDir });
    const after = fleet.clients.map((c) => structuredClone(c.acked));
    const report = await run.stop();
    await stopProcess(server);

    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(report.lostWrites).toBe(0);
    expect(Object.keys(report.byStatus).filter((s) => Number(s) >= 500)).toEqual([]);
    // Writes went on while the backup ran: it was taken under load, not in a pause.
    const sum = (list: { version: number }[]) => list.reduce((n, a) => n + a.version, 0);
    expect(sum(after)).toBeGreaterThan(sum(before));

    manifest = JSON.parse(readFileSync(join(backupDir, "manifest.json"), "utf8"));
    expect(JSON.parse(backup.stdout)).toEqual(manifest);
    expect(manifest.databases.map((db) => db.service)).toEqual([...serviceNames].reverse());
    expect(manifest.secrets.map((s) => s.variable).sort()).toEqual([
      "SAVEPOINT_LINK_SECRET",
      "SAVEPOINT_TRANSFER_SECRET",
    ]);
    expect(manifest.server.version).toBe(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version);
    const text = (dir: string, file: string) => readFileSync(join(dir, file), "utf8").trim();
    for (const secret of manifest.secrets) expect(text(backupDir, secret.file)).toBe(text(dataDir, secret.file));
    for (const db of manifest.databases) {
      const file = join(backupDir, db.file);
      const expected = {
        file: db.file,
        integrity: ["ok"],
        tables: db.tables,
        userVersion: db.userVersion,
        schemaVersion: db.schemaVersion,
        sha256: db.sha256,
      };
      expect({ file: db.file, ...inspect(file, db.service), sha256: sha256(file) }).toEqual(expected);
    }
    expect(manifest.databases.find((db) => db.service === "accounts")!.tables.slots).toBeGreaterThanOrEqual(12);

    const restore = await cli(["restore", backupDir, "--data-dir", restoredDir]);
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    for (const entry of [...manifest.databases, ...manifest.secrets])
      expect(sha256(join(restoredDir, entry.file))).toBe(entry.sha256);
    for (const db of manifest.databases) expect(inspect(join(restoredDir, db.file)).integrity).toEqual(["ok"]);

    const port2 = freePort();
    const restored = await spawnEmbedded(restoredDir, port2);
    try {
      const r = embeddedAt(`http://127.0.0.1:${port2}`);
      for (const [i, c] of fleet.clients.entries()) {
        const slot = await call(r, "GET", `/api/v1/accounts/${c.accountId}/slots/${c.slotId}`, {
          key,
          session: c.session,
        });
        expect(slot.status).toBe(200);
        // Every write acknowledged before the backup began is there; nothing past what was sent.
        expect(slot.body.version).toBeGreaterThanOrEqual(before[i]!.version);
        if (slot.body.version === before[i]!.version) expect(slot.body.data).toEqual(before[i]!.data);
        expect(slot.body.version).toBeLessThanOrEqual(after[i]!.version + 1);
        expect(slot.body.data.client).toBe(i);
        // Not torn: the account's running count agrees with what it stores, as each commit left it.
        const account = await call(r, "GET", `/admin/v1/accounts/${c.accountId}`, { key: adminToken });
        const { storedBytes, currentStateBytes, historyBytes } = account.body.storage;
        expect(storedBytes).toBe(currentStateBytes + historyBytes);
        // The server continues from the restored version: a stale base still gets its 409, the current one is accepted.
        const sync = (baseVersion: number) =>
          call(r, "POST", `/api/v1/accounts/${c.accountId}/slots/${c.slotId}/sync`, {
            key,
            session: c.session,
            body: { baseVersion, data: { n: -1, client: i } },
          });
        const stale = await sync(slot.body.version - 1);
        expect(stale.status).toBe(409);
        expect(stale.body.status).toBe("conflict");
        // A device that synced after the backup holds a version the restored server never had: the same 409.
        const ahead = await sync(slot.body.version + 5);
        expect(ahead.status).toBe(409);
        expect(ahead.body.status).toBe("conflict");
        const next = await sync(slot.body.version);
        expect(next.status).toBe(200);
        expect(next.body.version).toBe(slot.body.version + 1);
      }
      const consume = { transferCode: code.body.transferCode, deviceLabel: "new" };
      const consumed = await call(r, "POST", "/api/v1/account-transfer-codes/consume", { key, body: consume });
      expect(consumed.status).toBe(200);
      expect(consumed.body.accountId).toBe(first.accountId);
    } finally {
      await stopProcess(restored);
    }
  }, 120_000);

  test("a backup refuses to go without the link secret the stores were written with, and takes it from the variable", async () => {
    // The server of the first test is stopped: its folder may be copied as files now.
    const copy = join(tempDir("backup-secretless"), "data");
    cpSync(dataDir, copy, { recursive: true });
    const secret = readFileSync(join(copy, "savepoint_link_secret"), "utf8").trim();
    rmSync(join(copy, "savepoint_link_secret"));
    const out = join(tempDir("backup-secretless-out"), "b");
    const refused = await cli(["backup", "--out", out, "--data-dir", copy], { SAVEPOINT_LINK_SECRET: "" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("SAVEPOINT_LINK_SECRET: the stores were written with fingerprint");
    expect(existsSync(out)).toBe(false);
    const wrong = await cli(["backup", "--out", join(out, "wrong"), "--data-dir", copy], {
      SAVEPOINT_LINK_SECRET: "x".repeat(43),
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("is not it");
    const taken = await cli(["backup", "--out", join(out, "right"), "--data-dir", copy], {
      SAVEPOINT_LINK_SECRET: secret,
    });
    expect(taken.stderr).toBe("");
    expect(readFileSync(join(out, "right", "savepoint_link_secret"), "utf8")).toBe(secret);
  });

  test("restore refuses a folder that is not empty, and writes nothing there", async () => {
    const target = tempDir("backup-nonempty");
    writeFileSync(join(target, "keep.txt"), "mine");
    const res = await cli(["restore", backupDir, "--data-dir", target]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("is not empty");
    expect(readdirSync(target)).toEqual(["keep.txt"]);
    expect(readFileSync(join(target, "keep.txt"), "utf8")).toBe("mine");
  });

  test("restore refuses a backup with a changed store or secret, naming the file, and leaves no data folder", async () => {
    for (const file of ["accounts.sqlite", "savepoint_link_secret"]) {
      const copy = join(tempDir("backup-tampered"), "b");
      cpSync(backupDir, copy, { recursive: true });
      const bytes = readFileSync(join(copy, file));
      bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
      writeFileSync(join(copy, file), bytes);
      const target = join(tempDir("backup-tampered-target"), "data");
      const res = await cli(["restore", copy, "--data-dir", target]);
      expect({ file, code: res.code }).toEqual({ file, code: 1 });
      expect(res.stderr).toContain(`${file} does not match the manifest`);
      expect(existsSync(target)).toBe(false);
    }
  });
});

/** A series' value in /metrics text, or undefined while it is absent. */
const series = (text: string, name: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
};

describe("scheduled backups", () => {
  test("the server backs itself up on its interval, keeps the newest KEEP, shows the last in /metrics and /readyz; a failure is logged, counted", async () => {
    const dataDir = tempDir("backup-scheduled");
    const backups = join(tempDir("backup-scheduled-out"), "auto");
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      SAVEPOINT_BACKUP_DIR: backups,
      SAVEPOINT_BACKUP_INTERVAL_MINUTES: "0.01",
      SAVEPOINT_BACKUP_KEEP: "2",
      LOG_LEVEL: "info",
    };
    const server = Bun.spawn([process.execPath, join(root, "services", "main.ts")], {
      env: {
        ...process.env,
        SAVEPOINT_DATA_DIR: dataDir,
        PORT: String(port),
        HOST: "127.0.0.1",
        SAVEPOINT_ADMIN_TOKEN: adminToken,
        ...env,
      },
      stdout: "ignore",
      stderr: "pipe",
    });
    trackChild(server);
    let log = "";
    void (async () => {
      for await (const chunk of server.stderr) log += new TextDecoder().decode(chunk);
    })();
    await waitForPort(port, 30_000, "savepoint");
    try {
      const metricsText = () => fetch(`${base}/metrics`).then((r) => r.text());
      // Polls until `done`, or 30 s: then the assertions after it say what never happened.
      const until = async (done: (m: string) => boolean) => {
        const deadline = Date.now() + 30_000;
        for (let m = await metricsText(); ; m = await metricsText()) {
          if (done(m) || Date.now() > deadline) return m;
          await Bun.sleep(100);
        }
      };
      const made = await until((m) => (series(m, 'savepoint_backups_total{outcome="ok"}') ?? 0) >= 4);
      expect(series(made, 'savepoint_backups_total{outcome="ok"}') ?? 0).toBeGreaterThanOrEqual(4);
      // Four or more made, the newest two kept (polled: a run renames its folder a moment before it rotates).
      const finished = () => readdirSync(backups).filter((n) => !n.endsWith(".partial"));
      await until(() => finished().length === 2);
      expect(finished()).toHaveLength(2);
      const ready = (await (await fetch(`${base}/readyz`)).json()) as { backup: { lastAt: string; lastBytes: number } };
      const m = await metricsText();
      const kept = finished().map(
        (n) => JSON.parse(readFileSync(join(backups, n, "manifest.json"), "utf8")) as Manifest & { finishedAt: string },
      );
      expect(kept.map((k) => [k.finishedAt, k.totalBytes])).toContainEqual([
        ready.backup.lastAt,
        ready.backup.lastBytes,
      ]);
      expect(ready.backup).toMatchObject({ failed: 0, keep: 2, intervalMinutes: 0.01 });
      expect(kept.map((k) => k.totalBytes)).toContain(series(m, "savepoint_backup_last_size_bytes")!);
      expect(kept.map((k) => Date.parse(k.finishedAt) / 1000)).toContain(
        series(m, "savepoint_backup_last_success_timestamp_seconds")!,
      );
      expect(kept.every((k) => k.databases.length === 6 && k.secrets.length === 2)).toBe(true);
      expect(series(m, 'savepoint_backups_total{outcome="failed"}')).toBeUndefined();

      // The folder becomes a file: the next backups fail, are counted, and /readyz says when.
      rmSync(backups, { recursive: true, force: true });
      writeFileSync(backups, "not a folder");
      const failed = await until((text) => (series(text, 'savepoint_backups_total{outcome="failed"}') ?? 0) >= 1);
      expect(series(failed, "savepoint_backup_last_failure_timestamp_seconds")).toBeGreaterThan(0);
      const afterFailure = (await (await fetch(`${base}/readyz`)).json()) as {
        ready: boolean;
        backup: Record<string, unknown>;
      };
      expect(afterFailure.ready).toBe(true);
      expect(afterFailure.backup.failed as number).toBeGreaterThanOrEqual(1);
      expect(typeof afterFailure.backup.lastFailureAt).toBe("string");
      const lines = log.split("\n").filter((l) => l.includes('"backup failed"'));
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", msg: "backup failed" });
    } finally {
      await stopProcess(server);
    }
  }, 60_000);
});
