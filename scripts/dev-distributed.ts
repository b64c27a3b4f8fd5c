import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { entryArgs, serviceNames } from "../services/registry.ts";
import {
  defaultSecretsFile,
  initSecretsFile,
  parseSecretsFile,
  sharedSecrets,
} from "../shared/process/secrets-file.ts";
import { randomBase62 } from "../shared/util/ids.ts";
import { freePort, waitForPort } from "../tests/helpers/ports.ts";
import { ferretdbBin, natsServerBin } from "../tests/helpers/tools.ts";
import { buildFerretdb } from "./build-ferretdb.ts";
import { type Child, runningChildren, startChild, stopAll, whenAChildDies } from "./dev-processes.ts";

/**
 * `npm run dev:distributed`: the distributed deployment on one machine without Docker (docs/distributed.md).
 * NATS with JetStream, the store (MONGODB_URL, else FerretDB on SQLite under
 * ./data-distributed), two copies of every service and two gateways on PORT and PORT+1. Prints where
 * everything listens; Ctrl-C (or SIGTERM) stops every process it started and waits for them.
 */
const dataDir = resolve(process.env.SAVEPOINT_DEV_DATA_DIR ?? "data-distributed");
const port = Number(process.env.PORT ?? 8080);
const copies = 2;

function fail(message: string): never {
  process.stderr.write(`dev:distributed: ${message}\n`);
  process.exit(1);
}

/** The shared secrets: from the environment, else from the file `secrets init` writes (made here on the first start). */
function secrets(): { values: Record<string, string>; source: string } {
  if (sharedSecrets.every((name) => process.env[name])) {
    return { values: Object.fromEntries(sharedSecrets.map((n) => [n, process.env[n]!])), source: "the environment" };
  }
  const file = resolve(process.env.SAVEPOINT_SECRETS_FILE ?? defaultSecretsFile);
  const made = !existsSync(file);
  if (made) initSecretsFile(file);
  const values = parseSecretsFile(readFileSync(file, "utf8"));
  const missing = sharedSecrets.filter((name) => !values[name]);
  if (missing.length) {
    const why = "a new link secret orphans every identity link";
    fail(
      `${file} lacks ${missing.join(" and ")}: restore it from your backup, or move it away to make new secrets (${why})`,
    );
  }
  return { values, source: `${file}${made ? " (written now: keep it and back it up)" : ""}` };
}

async function startNats(): Promise<string> {
  if (process.env.NATS_URL) return process.env.NATS_URL;
  const bin = natsServerBin();
  if (!bin || !existsSync(bin)) {
    fail(
      "nats-server not found. Install it (Debian/Ubuntu: apt-get install nats-server; macOS: brew install nats-server; or a release from " +
        "https://github.com/nats-io/nats-server/releases), or set NATS_URL to a NATS server with JetStream.",
    );
  }
  const natsPort = Number(process.env.SAVEPOINT_DEV_NATS_PORT ?? freePort());
  const dir = join(dataDir, "nats");
  mkdirSync(dir, { recursive: true });
  startChild("nats", 0, [bin, "-a", "127.0.0.1", "-p", String(natsPort), "-js", "-sd", dir], process.env);
  await waitForPort(natsPort, 30_000, "nats-server");
  return `nats://127.0.0.1:${natsPort}`;
}

async function startStore(): Promise<{ url: string; what: string }> {
  if (process.env.MONGODB_URL) return { url: process.env.MONGODB_URL, what: "MONGODB_URL" };
  const storePort = Number(process.env.SAVEPOINT_DEV_STORE_PORT ?? freePort());
  const dir = join(dataDir, "ferretdb");
  mkdirSync(dir, { recursive: true });
  const args = ["--listen-addr", `127.0.0.1:${storePort}`, "--handler", "sqlite", "--sqlite-url", `file:${dir}/`];
  startChild("ferretdb", 1, [ferretdbBin, ...args], process.env);
  await waitForPort(storePort, 30_000, "FerretDB");
  return { url: `mongodb://127.0.0.1:${storePort}/`, what: `FerretDB on SQLite in ${dir}` };
}

/** Until both gateways say ready and every service answers through them. */
async function untilReady(bases: string[], deadline: number) {
  for (const base of bases) {
    for (;;) {
      const answer = await fetch(`${base}/readyz`)
        .then((r) => (r.ok ? (r.json() as Promise<{ degraded?: boolean }>) : undefined))
        .catch(() => undefined);
      if (answer && !answer.degraded) break;
      if (Date.now() > deadline) throw new Error(`${base}/readyz did not report every service ready in time`);
      await Bun.sleep(200);
    }
  }
}

let shuttingDown = false;
async function shutDown(code: number) {
  if (shuttingDown) return;
  shuttingDown = true;
  process.stdout.write("dev:distributed: stopping every process...\n");
  await stopAll();
  process.stdout.write("dev:distributed: stopped\n");
  process.exit(code);
}
process.on("SIGINT", () => void shutDown(0));
process.on("SIGTERM", () => void shutDown(0));
whenAChildDies((child: Child, code) => {
  const tail = child.tail.map((l) => `  ${l}`).join("\n");
  process.stderr.write(
    `dev:distributed: ${child.name} exited (${code ?? child.proc.signalCode}); its last lines:\n${tail}\n`,
  );
  void shutDown(1);
});

try {
  const { values, source } = secrets();
  const adminToken = process.env.SAVEPOINT_ADMIN_TOKEN ?? randomBase62(32);
  // Before anything runs, so a build that fails leaves no process behind.
  if (!process.env.MONGODB_URL) await buildFerretdb();
  const natsUrl = await startNats();
  const store = await startStore();
  const drainMs = process.env.SAVEPOINT_DRAIN_MS ?? "500";
  const env = {
    ...process.env,
    ...values,
    NATS_URL: natsUrl,
    MONGODB_URL: store.url,
    SAVEPOINT_ADMIN_TOKEN: adminToken,
    SAVEPOINT_DRAIN_MS: drainMs,
  };
  const pids = runningChildren().map((c) => `${c.name} ${c.proc.pid}`);
  const service = (
    name: (typeof serviceNames)[number] | "gateway",
    copy: number,
    tier: number,
    extra: Record<string, string> = {},
  ) => {
    const child = startChild(`${name}-${copy}`, tier, [process.execPath, ...entryArgs(name)], { ...env, ...extra });
    pids.push(`${child.name} ${child.proc.pid}`);
  };
  for (const name of serviceNames) for (let i = 1; i <= copies; i++) service(name, i, 2);
  const bases = [port, port + 1].map((p, i) => {
    service("gateway", i + 1, 3, { PORT: String(p) });
    return `http://127.0.0.1:${p}`;
  });
  await untilReady(bases, Date.now() + Number(process.env.SAVEPOINT_START_TIMEOUT_MS ?? 120_000));
  const lines = [
    "",
    "Savepoint distributed deployment ready:",
    ...bases.map((b, i) => `  gateway ${i + 1}   ${b}   (${b}/docs, ${b}/readyz)`),
    `  NATS        ${natsUrl}`,
    `  store       ${store.url}   (${store.what})`,
    `  secrets     ${source}`,
    `  processes   ${pids.join(", ")}`,
    "",
    `  export SAVEPOINT_URL=${bases[0]} SAVEPOINT_ADMIN_TOKEN=${process.env.SAVEPOINT_ADMIN_TOKEN ? "<yours>" : adminToken}`,
    "  npx savepoint workspace create --name 'My Studio'",
    "",
    "Ctrl-C stops everything.",
    "",
  ];
  process.stdout.write(lines.join("\n"));
} catch (err) {
  process.stderr.write(`dev:distributed: ${err instanceof Error ? err.message : String(err)}\n`);
  await shutDown(1);
}
