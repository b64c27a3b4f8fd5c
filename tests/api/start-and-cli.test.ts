import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir, trackChild } from "../helpers/infra.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";

const root = join(import.meta.dir, "..", "..");
const adminToken = "cli-admin-token-0123456789";

/** `npm start`'s entry point as a real process on a fresh data directory. */
async function start(dataDir: string, port: number) {
  const proc = Bun.spawn([process.execPath, join(root, "services", "main.ts")], {
    env: { ...process.env, SAVEPOINT_DATA_DIR: dataDir, PORT: String(port), SAVEPOINT_ADMIN_TOKEN: adminToken, LOG_LEVEL: "warn", NATS_URL: "", MONGODB_URL: "" },
    stdout: "pipe",
    stderr: "ignore",
  });
  trackChild(proc);
  await waitForPort(port, 20_000, "savepoint");
  return proc;
}

async function cli(port: number, ...args: string[]) {
  const proc = Bun.spawn([process.execPath, join(root, "services", "cli", "main.ts"), ...args], {
    env: { ...process.env, SAVEPOINT_URL: `http://127.0.0.1:${port}`, SAVEPOINT_ADMIN_TOKEN: adminToken },
    stdout: "pipe",
    stderr: "pipe",
  });
  const code = await proc.exited;
  const out = await new Response(proc.stdout).text();
  return { code, json: out ? JSON.parse(out) : undefined, stderr: await new Response(proc.stderr).text() };
}

describe("embedded start and the operator CLI", () => {
  const dataDir = tempDir("start");
  const port = freePort();
  let proc: Bun.Subprocess<"ignore", "pipe", "ignore">;
  let firstOutput = "";
  beforeAll(async () => {
    proc = await start(dataDir, port);
    const reader = proc.stdout.getReader();
    while (!firstOutput.includes("Stage runtime key")) firstOutput += new TextDecoder().decode((await reader.read()).value);
    reader.releaseLock();
  });
  afterAll(() => proc.kill());

  test("the first start prints a working stage key once", async () => {
    const key = /spk_stage_[A-Za-z0-9]+/.exec(firstOutput)?.[0];
    expect(key).toBeDefined();
    expect(firstOutput).toContain("plan self_hosted");
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(201);
  });

  test("the CLI creates a workspace, project and key, sets the policy, and revokes the key", async () => {
    const ws = await cli(port, "workspace", "create", "--name", "Studio", "--plan", "starter");
    expect(ws.code).toBe(0);
    expect(ws.json.plan).toBe("starter");
    const project = await cli(port, "project", "create", "--workspace", ws.json.workspaceId, "--name", "Game");
    const key = await cli(port, "key", "create", "--project", project.json.projectId, "--env", "prod", "--label", "ci");
    expect(key.json.runtimeKey).toMatch(/^spk_prod_/);
    const policy = await cli(port, "sync-policy", "set", "--project", project.json.projectId, "--minRemoteSyncIntervalSeconds", "120", "--syncOnReconnect", "false");
    expect(policy.json).toMatchObject({ minRemoteSyncIntervalSeconds: 120, syncOnReconnect: false });

    const created = (await (await fetch(`http://127.0.0.1:${port}/api/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${key.json.runtimeKey}` } })).json()) as { accountId: string; syncPolicy: { minRemoteSyncIntervalSeconds: number } };
    expect(created.syncPolicy.minRemoteSyncIntervalSeconds).toBe(120);
    const suspended = await cli(port, "account", "suspend", "--account", created.accountId);
    expect(suspended.json.status).toBe("suspended");
    expect((await cli(port, "account", "get", "--account", created.accountId)).json.account.status).toBe("suspended");
    expect((await cli(port, "account", "unsuspend", "--account", created.accountId)).json.status).toBe("active");

    expect((await cli(port, "key", "revoke", "--key", key.json.keyId)).code).toBe(0);
    const refused = await fetch(`http://127.0.0.1:${port}/api/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${key.json.runtimeKey}` } });
    expect(refused.status).toBe(401);
  });

  test("a CLI error answer exits non-zero; an unknown command prints usage", async () => {
    const missing = await cli(port, "account", "get", "--account", "acc_nope");
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe("not_found");
    const unknown = await cli(port, "nothing", "here");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("workspace create");
  });

  test("a restart on the same data does not create or print another key", async () => {
    proc.kill();
    await proc.exited;
    proc = await start(dataDir, port);
    await Bun.sleep(200);
    proc.kill();
    const output = await new Response(proc.stdout).text();
    expect(output).toContain("Savepoint listening");
    expect(output).not.toContain("spk_");
  });
});
