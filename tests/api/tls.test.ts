import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { startNats, tempDir, trackChild } from "../helpers/infra.ts";
import { freePort } from "../helpers/ports.ts";

// The gateway terminates TLS itself (docs/tls.md): HTTPS with HSTS, a renewed certificate served to new
// connections without a restart, and a warning when it would carry keys over plain HTTP on the network.
const root = join(import.meta.dir, "..", "..");
const dir = tempDir("tls");

/** A self-signed certificate for 127.0.0.1 whose common name says which one it is. */
function makeCertificate(name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const args = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"];
  const made = Bun.spawnSync([
    "openssl",
    ...args,
    "-keyout",
    key,
    "-out",
    cert,
    "-subj",
    `/CN=${name}`,
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ]);
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  return { cert, key };
}

/** A server process, its output collected as it comes. */
function spawn(entry: string, env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(root, ...entry.split("/"))], {
    env: {
      ...process.env,
      NATS_URL: "",
      MONGODB_URL: "",
      SAVEPOINT_TRUSTED_PROXIES: "",
      SAVEPOINT_TLS_CERT: "",
      SAVEPOINT_TLS_KEY: "",
      LOG_LEVEL: "info",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  trackChild(proc);
  const out = { text: "" };
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out.text += decoder.decode(chunk, { stream: true });
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  return {
    proc,
    out,
    async waitFor(pattern: RegExp, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(out.text)) {
        if (Date.now() > deadline || proc.exitCode !== null)
          throw new Error(`${entry} never printed ${pattern}:\n${out.text}`);
        await Bun.sleep(20);
      }
    },
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}

/** The common name of the certificate a new connection to `port` is shown. */
const servedName = (port: number) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      resolve(String(socket.getPeerCertificate().subject.CN));
      socket.end();
    });
    socket.on("error", reject);
  });

const a = makeCertificate("savepoint-a");
const b = makeCertificate("savepoint-b");
const live = { cert: join(dir, "live.crt"), key: join(dir, "live.key") };
copyFileSync(a.cert, live.cert);
copyFileSync(a.key, live.key);
const ca = (c: { cert: string }) => Bun.file(c.cert).text();

describe("the embedded server over TLS", () => {
  const [port, adminPort] = [freePort(), freePort()];
  const server = spawn("services/main.ts", {
    PORT: String(port),
    HOST: "127.0.0.1",
    SAVEPOINT_DATA_DIR: tempDir("tls-data"),
    SAVEPOINT_TLS_CERT: live.cert,
    SAVEPOINT_TLS_KEY: live.key,
    SAVEPOINT_ADMIN_ADDRESS: `127.0.0.1:${adminPort}`,
    SAVEPOINT_ADMIN_TOKEN: "tls-admin-token-0123456789",
  });
  afterAll(() => server.stop());

  test("answers HTTPS with Strict-Transport-Security, errors included", async () => {
    await server.waitFor(/Savepoint listening on https:\/\/127\.0\.0\.1/);
    const health = await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { ca: await ca(a) } });
    expect(health.status).toBe(200);
    expect(health.headers.get("strict-transport-security")).toBe("max-age=31536000");
    const missing = await fetch(`https://127.0.0.1:${port}/api/v1/nothing-here`, { tls: { ca: await ca(a) } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect(await servedName(port)).toBe("savepoint-a");
    // Routed on the path over https URLs too: a route answers as itself, and a one-letter Host cannot move the cut.
    const unkeyed = await fetch(`https://127.0.0.1:${port}/api/v1/accounts`, {
      method: "POST",
      tls: { ca: await ca(a) },
    });
    expect(unkeyed.status).toBe(401);
    const anyName = { ca: await ca(a), checkServerIdentity: () => undefined };
    const shortHost = await fetch(`https://127.0.0.1:${port}/zz/healthz`, { headers: { host: "a" }, tls: anyName });
    expect(shortHost.status).toBe(400);
    // The admin listener has the same certificate: the admin token is a secret too.
    const metrics = await fetch(`https://127.0.0.1:${adminPort}/metrics`, { tls: { ca: await ca(a) } });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("strict-transport-security")).toBe("max-age=31536000");
  });

  test("replaced certificate files are served to new connections without a restart; a half-written pair keeps the old one", async () => {
    const pid = server.proc.pid;
    // A renewal caught between its two writes: the new certificate beside the old key.
    copyFileSync(b.cert, join(dir, "next.crt"));
    renameSync(join(dir, "next.crt"), live.cert);
    await server.waitFor(/not a usable pair yet/);
    expect(await servedName(port)).toBe("savepoint-a");

    copyFileSync(b.key, join(dir, "next.key"));
    renameSync(join(dir, "next.key"), live.key);
    // Both listeners, each watching the files.
    await server.waitFor(/TLS certificate reloaded[\s\S]*TLS certificate reloaded/);
    expect(await servedName(port)).toBe("savepoint-b");
    expect(await servedName(adminPort)).toBe("savepoint-b");
    const health = await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { ca: await ca(b) } });
    expect(health.status).toBe(200);
    expect(health.headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect(server.proc.exitCode).toBeNull();
    expect(server.proc.pid).toBe(pid);
  });

  test("a second start on the same port is refused, as over plain HTTP", async () => {
    const tls = { SAVEPOINT_TLS_CERT: a.cert, SAVEPOINT_TLS_KEY: a.key };
    const second = spawn("services/main.ts", {
      PORT: String(port),
      HOST: "127.0.0.1",
      SAVEPOINT_DATA_DIR: tempDir("tls-second"),
      ...tls,
    });
    expect(await second.proc.exited).toBe(1);
    expect(second.out.text).toMatch(/savepoint: .*(in use|EADDRINUSE)/i);
  });
});

describe("the warning about plain HTTP", () => {
  const warning = /plain HTTP on 0\.0\.0\.0, which is not loopback, and no SAVEPOINT_TRUSTED_PROXIES/;
  const startWith = async (env: Record<string, string>) => {
    const server = spawn("services/main.ts", {
      PORT: String(freePort()),
      SAVEPOINT_DATA_DIR: tempDir("tls-warn"),
      ...env,
    });
    await server.waitFor(/Savepoint listening/);
    await server.stop();
    return server.out.text;
  };

  test("printed on every interface over plain HTTP with no trusted proxy", async () => {
    expect(await startWith({ HOST: "0.0.0.0" })).toMatch(warning);
  });

  test("not printed on loopback, behind a named proxy, or over TLS", async () => {
    expect(await startWith({ HOST: "127.0.0.1" })).not.toMatch(/plain HTTP/);
    expect(await startWith({ HOST: "0.0.0.0", SAVEPOINT_TRUSTED_PROXIES: "10.0.0.2" })).not.toMatch(/plain HTTP/);
    expect(await startWith({ HOST: "0.0.0.0", SAVEPOINT_TLS_CERT: a.cert, SAVEPOINT_TLS_KEY: a.key })).not.toMatch(
      /plain HTTP/,
    );
  });

  test("the distributed gateway over TLS: HTTPS with HSTS, and no warning", async () => {
    const nats = await startNats();
    const port = freePort();
    const tls = { SAVEPOINT_TLS_CERT: a.cert, SAVEPOINT_TLS_KEY: a.key };
    const gateway = spawn("services/gateway/main.ts", {
      NATS_URL: nats.url,
      PORT: String(port),
      HOST: "0.0.0.0",
      ...tls,
    });
    await gateway.waitFor(/gateway listening/);
    const health = await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { ca: await ca(a) } });
    expect(health.headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect(gateway.out.text).toMatch(/"url":"https:\/\/0\.0\.0\.0:/);
    expect(gateway.out.text).not.toMatch(/plain HTTP/);
    await gateway.stop();
    nats.stop();
  });
});
