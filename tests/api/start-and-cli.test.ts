import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { join } from "node:path";
import { npxEnv, startNats, tempDir, trackChild } from "../helpers/infra.ts";
import { freePort } from "../helpers/ports.ts";

const root = join(import.meta.dir, "..", "..");
const adminToken = "cli-admin-token-0123456789";

/** A server process whose stdout and stderr are collected as they come. */
function spawn(entry: string, env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(root, ...entry.split("/"))], {
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      NATS_URL: "",
      MONGODB_URL: "",
      HOST: "",
      SAVEPOINT_ADMIN_TOKEN: "",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  trackChild(proc);
  const out = { stdout: "", stderr: "" };
  const pump = async (stream: ReadableStream<Uint8Array>, key: keyof typeof out) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out[key] += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([pump(proc.stdout, "stdout"), pump(proc.stderr, "stderr")]);
  return {
    proc,
    out,
    /** Waits until stdout or stderr matches; fails with what the process printed. */
    async waitFor(pattern: RegExp, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(out.stdout + out.stderr)) {
        if (Date.now() > deadline || proc.exitCode !== null)
          throw new Error(`${entry} never printed ${pattern}:\n${out.stdout}\n${out.stderr}`);
        await Bun.sleep(20);
      }
    },
    async stop() {
      proc.kill();
      await proc.exited;
      await Promise.race([drained, Bun.sleep(1_000)]);
    },
  };
}

/** `npm start`'s entry point as a real process. */
async function start(env: Record<string, string>) {
  const server = spawn("services/main.ts", env);
  await server.waitFor(/listening/);
  return server;
}

async function run(cmd: string[], env: Record<string, string>) {
  const proc = Bun.spawn(cmd, { cwd: root, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

const cliAt = (url: string, ...args: string[]) =>
  run([process.execPath, join(root, "cli", "main.ts"), ...args], {
    SAVEPOINT_URL: url,
    SAVEPOINT_ADMIN_TOKEN: adminToken,
  });

/** One HTTP/1.1 request written byte for byte, as a client that lies about Content-Length would. */
function rawRequest(port: number, head: string, body: string, host = "127.0.0.1") {
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
    let text = "";
    const socket = connect({ port, host }, () => socket.write(head + body));
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const [headText = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = headText.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    };
    // Done once the whole answer is in: the server keeps the connection open for the body it was promised.
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? NaN);
      if (end >= 0 && Buffer.byteLength(text.slice(end + 4)) >= length) finish();
    });
    socket.on("close", finish);
    socket.on("error", reject);
    const timer = setTimeout(finish, 5_000);
  });
}

describe("embedded start and the operator CLI", () => {
  const dataDir = tempDir("start");
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const cli = (...args: string[]) => cliAt(url, ...args);
  let server: Awaited<ReturnType<typeof start>>;
  let firstOutput = "";
  beforeAll(async () => {
    server = await start({ SAVEPOINT_DATA_DIR: dataDir, PORT: String(port), SAVEPOINT_ADMIN_TOKEN: adminToken });
    await server.waitFor(/Stage runtime key/);
    firstOutput = server.out.stdout;
  });
  afterAll(() => server.stop());

  test("the first start prints a working stage key once", async () => {
    const key = /spk_stage_[A-Za-z0-9]+/.exec(firstOutput)?.[0];
    expect(key).toBeDefined();
    expect(firstOutput).toContain("plan self_hosted");
    const res = await fetch(`${url}/api/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(201);
  });

  test("start-up prints the address it binds (every interface by default), a local URL, and that the admin API is on", () => {
    expect(firstOutput).toContain(`http://0.0.0.0:${port}`);
    expect(firstOutput).toContain(`http://localhost:${port}`);
    expect(firstOutput).toMatch(/admin API on/i);
  });

  test("a declared 3 MB body is refused by the app's 1 MiB rule: 413 in the error envelope, with X-Request-Id", async () => {
    // Only a few bytes follow the header: the answer must come from Content-Length alone.
    const head = `POST /admin/v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${adminToken}\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n`;
    const declared = await rawRequest(port, head, '{"name":');
    expect(declared.status).toBe(413);
    expect(declared.headers["x-request-id"]).toMatch(/^req_/);
    expect(JSON.parse(declared.body).error).toMatchObject({
      code: "payload_too_large",
      details: { limitBytes: 1048576, actualBytes: 3000000 },
    });

    const sent = await fetch(`${url}/admin/v1/workspaces`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${adminToken}`,
        "content-type": "application/json",
        "x-request-id": "big-body-1",
      },
      body: JSON.stringify({ name: "x".repeat(3_000_000) }),
    });
    expect(sent.status).toBe(413);
    expect(sent.headers.get("x-request-id")).toBe("big-body-1");
    expect(((await sent.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });

  test("the CLI creates a workspace, project and key, sets the policy, ships a config, lists and revokes the key (--json)", async () => {
    const json = async (...args: string[]) => {
      const r = await cli(...args, "--json");
      expect([args.join(" "), r.code, r.stderr]).toEqual([args.join(" "), 0, ""]);
      return JSON.parse(r.stdout);
    };
    const ws = await json("workspace", "create", "--name", "Studio", "--plan", "starter");
    expect(ws.plan).toBe("starter");
    const project = await json("project", "create", "--workspace", ws.workspaceId, "--name", "Game");
    const key = await json("key", "create", "--project", project.projectId, "--env", "prod", "--label", "ci");
    expect(key.runtimeKey).toMatch(/^spk_prod_/);
    const policy = await json(
      "sync-policy",
      "set",
      "--project",
      project.projectId,
      "--minRemoteSyncIntervalSeconds",
      "120",
      "--syncOnReconnect",
      "false",
    );
    expect(policy).toMatchObject({ minRemoteSyncIntervalSeconds: 120, syncOnReconnect: false });

    const created = (await (
      await fetch(`${url}/api/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${key.runtimeKey}` } })
    ).json()) as { accountId: string; syncPolicy: { minRemoteSyncIntervalSeconds: number } };
    expect(created.syncPolicy.minRemoteSyncIntervalSeconds).toBe(120);
    expect((await json("account", "suspend", "--account", created.accountId)).status).toBe("suspended");
    expect((await json("account", "get", "--account", created.accountId)).account.status).toBe("suspended");
    expect((await json("account", "unsuspend", "--account", created.accountId)).status).toBe("active");

    const config = join(tempDir("cli-config"), "config.json");
    await Bun.write(config, JSON.stringify({ difficulty: "hard", waves: [1, 2, 3] }));
    expect(
      await json("game-config", "publish", "--project", project.projectId, "--env", "prod", "--data", `@${config}`),
    ).toMatchObject({ version: 1, enabled: true });
    const runtime = (await (
      await fetch(`${url}/api/v1/runtime-config`, { headers: { authorization: `Bearer ${key.runtimeKey}` } })
    ).json()) as { gameConfig: { data: unknown } };
    expect(runtime.gameConfig.data).toEqual({ difficulty: "hard", waves: [1, 2, 3] });
    expect(
      await json("settings", "set", "--project", project.projectId, "--rateLimits", '{"sessionRequestsPerMinute":300}'),
    ).toMatchObject({ rateLimits: { sessionRequestsPerMinute: 300 } });
    // docs/using-the-api.md#browser-games-cors: prod restricted to one origin, through the CLI.
    const origins = await json(
      "settings",
      "set",
      "--project",
      project.projectId,
      "--allowedOrigins",
      '{"prod":["https://game.example.com"]}',
    );
    expect(origins).toMatchObject({
      allowedOrigins: { prod: ["https://game.example.com"] },
      rateLimits: { sessionRequestsPerMinute: 300 },
    });
    const fromPage = (origin: string) =>
      fetch(`${url}/api/v1/runtime-config`, { headers: { authorization: `Bearer ${key.runtimeKey}`, origin } });
    expect([
      (await fromPage("https://game.example.com")).status,
      (await fromPage("https://elsewhere.example.net")).status,
    ]).toEqual([200, 403]);
    const badOrigin = await cli(
      "settings",
      "set",
      "--project",
      project.projectId,
      "--allowedOrigins",
      '{"prod":["https://game.example.com/"]}',
    );
    expect(badOrigin.code).toBe(1);
    expect(badOrigin.stderr).toContain(
      "invalid_request: The request is invalid. allowedOrigins.prod.0: Expected an origin",
    );
    expect((await json("key", "list", "--project", project.projectId)).keys).toEqual([
      expect.objectContaining({ keyId: key.keyId, environment: "prod", label: "ci", lastUsedAt: expect.any(String) }),
    ]);
    expect((await json("workspace", "update", "--workspace", ws.workspaceId, "--plan", "pro")).plan).toBe("pro");
    const badJson = await cli("settings", "set", "--project", project.projectId, "--rateLimits", "{nope");
    expect([badJson.code, badJson.stderr.trim().split("\n").at(-1)]).toEqual([
      2,
      '--rateLimits: expected a JSON object or @file.json, got "{nope"',
    ]);

    await json("key", "revoke", "--key", key.keyId);
    const refused = await fetch(`${url}/api/v1/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.runtimeKey}` },
    });
    expect(refused.status).toBe(401);
  });

  test("the CLI prints people-readable output by default: account get shows the account, then its slots and sessions as tables", async () => {
    const key = /spk_stage_[A-Za-z0-9]+/.exec(firstOutput)![0];
    const res = await fetch(`${url}/api/v1/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ accountData: { coins: 10 }, slot: { slotId: "main", slotInfo: { level: 1 }, data: {} } }),
    });
    const { accountId } = (await res.json()) as { accountId: string };
    const shown = await cli("account", "get", "--account", accountId);
    expect(shown.code).toBe(0);
    expect(() => JSON.parse(shown.stdout)).toThrow();
    expect(shown.stdout).toMatch(new RegExp(`^\\s*accountId: +${accountId}$`, "m"));
    expect(shown.stdout).toMatch(/^\s*status: +active$/m);
    const lines = shown.stdout.split("\n");
    const slotHeader = lines.findIndex((l) => /^\s*slotId +status +version\b/.test(l));
    expect(slotHeader).toBeGreaterThan(-1);
    expect(lines[slotHeader + 1]).toMatch(/^\s*main +active +1\b/);
    const sessionHeader = lines.findIndex((l) => /^\s*sessionId +createdAt\b/.test(l));
    expect(sessionHeader).toBeGreaterThan(slotHeader);
    expect(lines[sessionHeader + 1]).toMatch(/^\s*ses_[A-Za-z0-9]+ +\d{4}-/);
  });

  test("account get neutralises control characters in what it prints (ESC sequences, C1, CR/LF); --json stays valid JSON", async () => {
    const key = /spk_stage_[A-Za-z0-9]+/.exec(firstOutput)![0];
    const post = async (path: string, body: unknown, session?: string) =>
      (await fetch(`${url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          ...(session ? { "x-service-account-session": session } : {}),
        },
        body: JSON.stringify(body),
      }).then((r) => r.json())) as Record<string, string>;
    const hostileRef = "\x1b[2J\x1b[31mref\x9b1;1H\x07\x7f";
    const hostileLabel = "p\r\nstatus: deleted\x1b]0;o\x07\u0085";
    const { accountId, accountSessionToken } = await post("/api/v1/accounts", { playerRef: hostileRef });
    const { transferCode } = await post(`/api/v1/accounts/${accountId}/transfer-codes`, {}, accountSessionToken);
    expect(
      (await post("/api/v1/account-transfer-codes/consume", { transferCode, deviceLabel: hostileLabel })).accountId,
    ).toBe(accountId);

    const shown = await cli("account", "get", "--account", accountId);
    expect(shown.code).toBe(0);
    // Nothing a terminal acts on reaches it: no C0 but the newlines the CLI writes itself, no DEL, no C1.
    expect(shown.stdout.replace(/\n/g, "")).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(shown.stdout).toContain("\\x1b[2J\\x1b[31mref\\x9b1;1H\\x07\\x7f");
    expect(shown.stdout).toContain("p\\r\\nstatus: deleted\\x1b]0;o\\x07\\x85");
    expect(shown.stdout).not.toMatch(/^status: deleted/m);

    const scripted = await cli("account", "get", "--account", accountId, "--json");
    expect(scripted.code).toBe(0);
    expect(scripted.stdout.replace(/\n/g, "")).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    const parsed = JSON.parse(scripted.stdout);
    expect(parsed.account.playerRef).toBe(hostileRef);
    expect(parsed.sessions.map((x: { deviceLabel?: string }) => x.deviceLabel)).toContain(hostileLabel);
  });

  test("an error answer exits 1 with its code and message on one stderr line; --json still prints the answer alone", async () => {
    const missing = await cli("account", "get", "--account", "acc_nope");
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toContain("not_found: Account was not found.");
    const scripted = await cli("account", "get", "--account", "acc_nope", "--json");
    expect(scripted.code).toBe(1);
    expect(JSON.parse(scripted.stdout).error.code).toBe("not_found");
  });

  test("a bad number is one line naming the flag, not a stack", async () => {
    const bad = await cli("sync-policy", "set", "--project", "prj_x", "--minRemoteSyncIntervalSeconds", "abc");
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('--minRemoteSyncIntervalSeconds: expected a whole number, got "abc"');
    const flag = await cli("sync-policy", "set", "--project", "prj_x", "--syncOnReconnect", "yes");
    expect(flag.stderr.trim()).toBe('--syncOnReconnect: expected true or false, got "yes"');
  });

  test("a server that is down is one line saying so", async () => {
    const down = `http://127.0.0.1:${freePort()}`;
    const r = await cliAt(down, "account", "get", "--account", "acc_x");
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`cannot reach ${down}: is the server running? set SAVEPOINT_URL`);
  });

  test("--help and help print the commands and exit 0; no arguments or an unknown command print usage and exit 2", async () => {
    for (const args of [["--help"], ["help"], ["-h"]]) {
      const help = await cli(...args);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("workspace create");
      expect(help.stdout).toContain("--minRemoteSyncIntervalSeconds");
    }
    const commandHelp = await cli("account", "get", "--help");
    expect(commandHelp.code).toBe(0);
    expect(commandHelp.stdout).toContain("--account acc_...");
    for (const args of [[], ["nothing", "here"]]) {
      const usage = await cli(...args);
      expect(usage.code).toBe(2);
      expect(usage.stdout).toBe("");
      expect(usage.stderr).toContain("workspace create");
    }
  });

  test("the README's `npx savepoint ... --json` runs the CLI with only the JSON answer on stdout", async () => {
    const r = await run(
      ["npx", "--no-install", "savepoint", "workspace", "create", "--name", "Npx", "--json"],
      npxEnv({ SAVEPOINT_URL: url, SAVEPOINT_ADMIN_TOKEN: adminToken }),
    );
    expect(r.code).toBe(0);
    // This server runs without Stripe billing: a workspace made without a plan is self_hosted.
    expect(JSON.parse(r.stdout)).toMatchObject({ plan: "self_hosted" });
  });

  test("without $USER the audit log still names who ran the CLI: the account the process runs as", async () => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      SAVEPOINT_URL: url,
      SAVEPOINT_ADMIN_TOKEN: adminToken,
    };
    delete env.USER;
    delete env.LOGNAME;
    const proc = Bun.spawn(
      [process.execPath, join(root, "cli", "main.ts"), "workspace", "create", "--name", "NoUser", "--json"],
      { env, stdout: "pipe", stderr: "pipe" },
    );
    const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
    expect(code).toBe(0);
    const { workspaceId } = JSON.parse(stdout) as { workspaceId: string };
    const audit = JSON.parse((await cli("audit", "list", "--target", workspaceId, "--json")).stdout) as {
      entries: { actor: string }[];
    };
    // Bun's os.userInfo() reads $USER too: `id -un` asks the system.
    const name = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
    expect(audit.entries.map((e) => e.actor)).toEqual([`cli:${name}`]);
  });

  test("a restart on the same data does not create or print another key", async () => {
    await server.stop();
    server = await start({ SAVEPOINT_DATA_DIR: dataDir, PORT: String(port), SAVEPOINT_ADMIN_TOKEN: adminToken });
    await Bun.sleep(200);
    expect(server.out.stdout).toContain("Savepoint listening");
    expect(server.out.stdout).not.toContain("spk_");
    // ...but says how to get one, for the project the first start made.
    const projectId = /project (prj_[A-Za-z0-9]+)/.exec(firstOutput)![1];
    await server.waitFor(/key create/);
    expect(server.out.stdout).toContain(`npx savepoint key create --project ${projectId} --env stage`);
  });
});

describe("start-up failures", () => {
  test("a second start on a port in use fails instead of sharing it", async () => {
    const port = String(freePort());
    const first = await start({ PORT: port, HOST: "127.0.0.1", SAVEPOINT_DATA_DIR: tempDir("first") });
    try {
      const second = spawn("services/main.ts", {
        PORT: port,
        HOST: "127.0.0.1",
        SAVEPOINT_DATA_DIR: tempDir("second"),
      });
      expect(await second.proc.exited).toBe(1);
      await second.stop();
      expect(second.out.stderr).toMatch(/^savepoint: .*(in use|EADDRINUSE)/im);
      expect(second.out.stderr).not.toMatch(/^\s+at /m); // no stack trace
    } finally {
      await first.stop();
    }
  });

  test("a bad setting stops start-up with one line naming it", async () => {
    for (const env of [{ PORT: "abc" }, { LOG_LEVEL: "loud" }, { SAVEPOINT_ADMIN_TOKEN: "short" }] as Record<
      string,
      string
    >[]) {
      const bad = spawn("services/main.ts", { ...env, SAVEPOINT_DATA_DIR: tempDir("bad") });
      expect(await bad.proc.exited).toBe(1);
      await bad.stop();
      const lines = bad.out.stderr.trim().split("\n");
      expect(lines[0]).toBe("savepoint: invalid configuration:");
      expect(lines[1]).toContain(Object.keys(env)[0]!);
      expect(bad.out.stderr).not.toMatch(/^\s+at /m); // no stack trace
    }
  });
});

describe("HOST", () => {
  test("npm start binds HOST only and prints that address; without a token it says the admin API is off", async () => {
    // 127.0.0.2 is loopback too on Linux, so a bind there proves 127.0.0.1 is not listened on.
    const port = freePort();
    const server = await start({ SAVEPOINT_DATA_DIR: tempDir("host"), PORT: String(port), HOST: "127.0.0.2" });
    try {
      await server.waitFor(/admin API/i);
      expect(server.out.stdout).toContain(`http://127.0.0.2:${port}`);
      expect(server.out.stdout).not.toContain("localhost");
      expect(server.out.stdout).toMatch(/admin API off/i);
      expect((await fetch(`http://127.0.0.2:${port}/healthz`)).status).toBe(200);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      await server.stop();
    }
  });

  test("the gateway alone binds HOST, logs its address and admin state, and answers a 3 MB Content-Length itself", async () => {
    const nats = await startNats();
    const port = freePort();
    const gateway = spawn("services/gateway/main.ts", {
      NATS_URL: nats.url,
      PORT: String(port),
      HOST: "127.0.0.2",
      LOG_LEVEL: "info",
      SAVEPOINT_ADMIN_TOKEN: adminToken,
    });
    try {
      await gateway.waitFor(/gateway listening/);
      const line = JSON.parse(gateway.out.stderr.split("\n").find((l) => l.includes("gateway listening"))!);
      expect(line).toMatchObject({ url: `http://127.0.0.2:${port}`, adminApi: "on" });
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      const head = `POST /admin/v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${adminToken}\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n`;
      const answer = await rawRequest(port, head, "{", "127.0.0.2");
      expect(answer.status).toBe(413);
      expect(answer.headers["x-request-id"]).toMatch(/^req_/);
      expect(JSON.parse(answer.body).error.code).toBe("payload_too_large");
    } finally {
      await gateway.stop();
      nats.stop();
    }
  });
});

describe("stopping npm start", () => {
  // A drain of 10 minutes: a stop that waited for it would end this test by its timeout instead.
  const longDrain = { SAVEPOINT_DRAIN_MS: "600000", LOG_LEVEL: "info", HOST: "127.0.0.1" };

  test("Ctrl-C (SIGINT) with nothing in flight stops at once instead of waiting out the drain, and exits 0", async () => {
    const server = await start({ ...longDrain, SAVEPOINT_DATA_DIR: tempDir("sigint"), PORT: String(freePort()) });
    server.proc.kill("SIGINT");
    expect(await server.proc.exited).toBe(0);
    await server.stop();
    expect(server.out.stderr).toContain('"nothing in flight"');
  });

  test("Ctrl-C with a request in flight answers it first, then stops", async () => {
    const port = freePort();
    const server = await start({ ...longDrain, SAVEPOINT_DATA_DIR: tempDir("sigint-busy"), PORT: String(port) });
    await server.waitFor(/Stage runtime key/);
    const key = /spk_stage_[A-Za-z0-9]+/.exec(server.out.stdout)![0];
    // The body is promised but not sent yet: the request stays in flight until the rest arrives.
    const body = '{"deviceLabel":"x"}';
    const answered = new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = connect({ port, host: "127.0.0.1" }, () => {
        socket.write(
          `POST /api/v1/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n{`,
        );
        setTimeout(() => {
          server.proc.kill("SIGINT");
          setTimeout(() => socket.write(body.slice(1)), 300);
        }, 300);
      });
      socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    const answer = await answered;
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 201 Created");
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(await server.proc.exited).toBe(0);
    await server.stop();
  });
});
