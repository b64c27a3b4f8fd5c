import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { startEmbedded } from "../helpers/deployments.ts";
import { mongo, startNats, tempDir, trackChild, uniqueDb } from "../helpers/infra.ts";

/**
 * docs/distributed.md: the shared secrets are made once into a file the operator keeps, and a
 * service started with another link or transfer secret than its store was written with refuses to
 * start, saying which secret and why.
 */
const root = join(import.meta.dir, "..", "..");

async function run(args: string[], env: Record<string, string | undefined> = {}) {
  const proc = Bun.spawn([process.execPath, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  trackChild(proc);
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

const cli = (...args: string[]) => run([join(root, "cli", "main.ts"), ...args], { SAVEPOINT_ADMIN_TOKEN: "" });

describe("secrets init", () => {
  test("writes both secrets once, owner-only; a second run refuses and leaves the file as it was", async () => {
    const file = join(tempDir("secrets"), "secrets.env");
    const first = await cli("secrets", "init", "--file", file);
    expect(first.code, first.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = await Bun.file(file).text();
    expect(text).toMatch(/^SAVEPOINT_LINK_SECRET=[A-Za-z0-9]{43}$/m);
    expect(text).toMatch(/^SAVEPOINT_TRANSFER_SECRET=[A-Za-z0-9]{43}$/m);
    const again = await cli("secrets", "init", "--file", file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists: not overwritten");
    expect(await Bun.file(file).text()).toBe(text);
  });
});

const withoutSecrets = (env: Record<string, string | undefined>) =>
  Object.fromEntries(
    Object.entries(env).filter(([k]) => k !== "SAVEPOINT_LINK_SECRET" && k !== "SAVEPOINT_TRANSFER_SECRET"),
  );

/** A service process with its stderr kept; resolves once it logged that it is ready, or exited. */
async function startService(name: string, env: Record<string, string>, envFile?: string) {
  const proc = Bun.spawn(
    [process.execPath, ...(envFile ? [`--env-file=${envFile}`] : []), join(root, "services", "standalone.ts"), name],
    {
      cwd: root,
      // Secrets only from `env` or the file: a variable in the environment, even empty, would win over the file.
      env: { ...withoutSecrets(process.env), LOG_LEVEL: "info", SAVEPOINT_METRICS_PORT: "", ...env },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  trackChild(proc);
  let stderr = "";
  const pump = (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const deadline = Date.now() + 60_000;
  while (!stderr.includes(`${name} service ready`) && proc.exitCode === null && Date.now() < deadline)
    await Bun.sleep(50);
  if (proc.exitCode !== null) await pump;
  return { proc, stderr: () => stderr, ready: stderr.includes(`${name} service ready`) };
}

const secretA = "secret-a-0123456789abcdefghijklmnopqrstuvwxyz";
const secretB = "secret-b-0123456789abcdefghijklmnopqrstuvwxyz";

describe("a changed secret (distributed)", () => {
  let nats: { url: string; stop(): void };
  let base: Record<string, string>;
  beforeAll(async () => {
    nats = await startNats();
    base = { NATS_URL: nats.url, MONGODB_URL: (await mongo()).url, MONGODB_DB: uniqueDb("secrets") };
  });
  afterAll(() => nats?.stop());

  for (const [service, variable, why] of [
    ["auth-bridge", "SAVEPOINT_LINK_SECRET", "changing it orphans every link"],
    ["transfer", "SAVEPOINT_TRANSFER_SECRET", "changing it voids every transfer code"],
  ] as const) {
    test(`${service}: started with secret A, then B refuses to start naming ${variable}; A again starts`, async () => {
      const first = await startService(service, { ...base, [variable]: secretA });
      expect(first.ready, first.stderr()).toBe(true);
      first.proc.kill("SIGTERM");
      expect(await first.proc.exited).toBe(0);

      const changed = await startService(service, { ...base, [variable]: secretB });
      expect(changed.ready, changed.stderr()).toBe(false);
      expect(changed.proc.exitCode).toBe(1);
      expect(changed.stderr()).toContain(`${service}: ${variable} differs from the one this store's`);
      expect(changed.stderr()).toContain("restore the original secret");
      expect(changed.stderr()).toContain(why);
      expect(changed.stderr()).not.toContain(secretA);
      expect(changed.stderr()).not.toContain(secretB);

      const restored = await startService(service, { ...base, [variable]: secretA });
      expect(restored.ready, restored.stderr()).toBe(true);
      restored.proc.kill("SIGTERM");
      expect(await restored.proc.exited).toBe(0);
    }, 120_000);
  }

  test("a service reads its secrets from the file `secrets init` wrote (bun --env-file), and keeps to them", async () => {
    const file = join(tempDir("secrets"), "secrets.env");
    expect((await cli("secrets", "init", "--file", file)).code).toBe(0);
    const env = { ...base, MONGODB_DB: uniqueDb("secrets-file") };
    const first = await startService("auth-bridge", env, file);
    expect(first.ready, first.stderr()).toBe(true);
    first.proc.kill("SIGTERM");
    await first.proc.exited;
    const other = join(tempDir("secrets"), "other.env");
    expect((await cli("secrets", "init", "--file", other)).code).toBe(0);
    const refused = await startService("auth-bridge", env, other);
    expect(refused.proc.exitCode, refused.stderr()).toBe(1);
    expect(refused.stderr()).toContain("SAVEPOINT_LINK_SECRET differs");
  }, 120_000);
});

describe("a changed secret (embedded)", () => {
  test("the embedded start keeps its generated secrets across restarts, and refuses a link secret set to another value", async () => {
    const dataDir = tempDir("embedded-secrets");
    for (let i = 0; i < 2; i++) await (await startEmbedded({ SAVEPOINT_DATA_DIR: dataDir })).stop();
    await expect(startEmbedded({ SAVEPOINT_DATA_DIR: dataDir, SAVEPOINT_LINK_SECRET: secretB })).rejects.toThrow(
      /SAVEPOINT_LINK_SECRET differs from the one this store's identity links were written with/,
    );
  });
});
