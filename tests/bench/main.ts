import { join } from "node:path";
import { adminToken, startDistributed } from "../helpers/deployments.ts";
import { tempDir, trackChild } from "../helpers/infra.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";
import { type LoadResult, rssMiB, runLoad } from "./load.ts";

/**
 * `bun run bench`: slot-sync throughput and latency of both deployments beside a bare Bun.serve
 * measured in the same run, on the same machine, with the same load generator. Compare the ratios:
 * the load generator shares the cores with the servers.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const workers = Number(process.env.BENCH_WORKERS ?? 16);
const root = join(import.meta.dir, "..", "..");
const data = { level: 12, inventory: Array.from({ length: 40 }, (_, i) => ({ id: i, n: i * 3 })), note: "x".repeat(200) };
const body = JSON.stringify({ baseVersion: 1, data });

function spawn(script: string, env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(root, script)], { env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdout: "pipe", stderr: "inherit" });
  trackChild(proc);
  return proc;
}

async function benchBaseline() {
  const port = freePort();
  const proc = spawn("tests/bench/baseline.ts", { PORT: String(port) });
  await waitForPort(port);
  const url = `http://127.0.0.1:${port}/`;
  const result = await runLoad(workers, seconds, async () => async () => (await fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } })).ok);
  const rss = await rssMiB(proc.pid);
  proc.kill();
  return { result, rss };
}

async function tenantKey(base: string) {
  const post = (path: string, payload: unknown) =>
    fetch(`${base}${path}`, { method: "POST", headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }, body: JSON.stringify(payload) }).then((r) => r.json() as Promise<any>);
  const ws = await post("/admin/v1/workspaces", { name: "bench", plan: "self_hosted" });
  const project = await post(`/admin/v1/workspaces/${ws.workspaceId}/projects`, { name: "bench" });
  // Each load client is one session syncing as fast as it can: far past a device's 120 requests a minute.
  await fetch(`${base}/admin/v1/projects/${project.projectId}/settings`, {
    method: "PUT",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ rateLimits: { sessionRequestsPerMinute: 1_000_000 } }),
  });
  return (await post(`/admin/v1/projects/${project.projectId}/environments/stage/runtime-keys`, {})).runtimeKey as string;
}

/** Each worker owns one account and slot and syncs it version after version: every request is accepted. */
async function benchSlotSync(base: string): Promise<LoadResult> {
  const key = await tenantKey(base);
  return runLoad(workers, seconds, async (i) => {
    const created = (await (await fetch(`${base}/api/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ slot: { slotId: `w${i}`, data } }) })).json()) as any;
    const url = `${base}/api/v1/accounts/${created.accountId}/slots/w${i}/sync`;
    const headers = { authorization: `Bearer ${key}`, "x-service-account-session": created.accountSessionToken, "content-type": "application/json" };
    let version = 1;
    return async () => {
      const res = await fetch(url, { method: "POST", headers, body: JSON.stringify({ baseVersion: version, data }) });
      const answer = (await res.json()) as { version?: number };
      if (res.status === 200) version = answer.version!;
      return res.status === 200;
    };
  });
}

async function benchEmbedded() {
  const port = freePort();
  const proc = spawn("services/main.ts", { PORT: String(port), SAVEPOINT_DATA_DIR: tempDir("bench"), SAVEPOINT_ADMIN_TOKEN: adminToken, NATS_URL: "", MONGODB_URL: "" });
  await waitForPort(port);
  const result = await benchSlotSync(`http://127.0.0.1:${port}`);
  const rss = await rssMiB(proc.pid);
  proc.kill();
  return { result, rss };
}

async function benchDistributed() {
  const d = await startDistributed({ copies: { accounts: 1 } });
  const result = await benchSlotSync(d.base);
  let rss = 0;
  for (const p of d.procs) rss += await rssMiB(p.pid);
  await d.stop();
  return { result, rss };
}

const row = (name: string, r: LoadResult, rss: number, baseline: LoadResult) =>
  `${name.padEnd(24)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(6)} ${rss.toFixed(0).padStart(8)} ${(r.rps / baseline.rps).toFixed(3).padStart(9)}`;

console.log(`slot sync, ${workers} concurrent clients, ${seconds} s each, ~${body.length} B bodies\n`);
const baseline = await benchBaseline();
const embedded = await benchEmbedded();
const distributed = await benchDistributed();
console.log(`${"target".padEnd(24)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"errors".padStart(6)} ${"RSS MiB".padStart(8)} ${"vs bare".padStart(9)}`);
console.log(row("bare Bun.serve", baseline.result, baseline.rss, baseline.result));
console.log(row("embedded (SQLite)", embedded.result, embedded.rss, baseline.result));
console.log(row("distributed (NATS+Ferret)", distributed.result, distributed.rss, baseline.result));
process.exit(0);
