import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { leaseMs } from "../../shared/store/mongo-lease.ts";
import {
  type FerretServer,
  type NatsCluster,
  startFerretOnPostgres,
  startNatsCluster,
  waitForSubscribers,
} from "../helpers/cluster.ts";
import { allServices, type DistributedDeployment, startDistributed } from "../helpers/deployments.ts";
import { createLoadFleet, formatReport, type LoadFleet, type LoadReport } from "../helpers/load.ts";

/**
 * Faults of the distributed deployment under steady load, as real processes on loopback: a
 * three-node NATS cluster, FerretDB on PostgreSQL, two copies of every service. Each scenario runs
 * 20 clients syncing their own slot for about ten seconds, injects one fault, and checks that every
 * request got an HTTP answer, that the answers were only 200, 409, 503 or 504, that no acknowledged
 * write was lost, and that accepted throughput came back within 5 s.
 */

const clients = 20;
const busTimeoutMs = 5_000;
/** Load before the fault: the baseline's 1 s buckets. */
const beforeFaultMs = 3_000;
const maxRecoveryMs = 5_000;
const allowed = new Set([200, 409, 503, 504]);

let cluster: NatsCluster;
let ferret: FerretServer;
let d: DistributedDeployment;
let fleet: LoadFleet;
const fileStarted = performance.now();

/** What each process wrote to its log since `sizes` was taken: a scenario's own lines. */
function logSizes(): Map<string, number> {
  const paths = [...d.processes.map((p) => p.log), ferret.log, ...cluster.nodes.map((n) => n.log)];
  return new Map(paths.map((p) => [p, fileSize(p)]));
}
const fileSize = (p: string) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};
async function logsSince(sizes: Map<string, number>, maxLinesPerFile = 4): Promise<string[]> {
  const out: string[] = [];
  for (const path of new Set([...sizes.keys(), ...d.processes.map((p) => p.log)])) {
    const from = sizes.get(path) ?? 0;
    const text = (
      await Bun.file(path)
        .text()
        .catch(() => "")
    ).slice(from);
    // FerretDB logs every failed lease insert (counted by leaseContention) and every unknown command.
    const noise = /duplicate key value violates unique constraint|msg="Response (message|header)/;
    const lines = text
      .split("\n")
      .filter((l) => l.trim() && !noise.test(l) && (path !== ferret.log || l.startsWith("time=")));
    if (lines.length === 0) continue;
    const name = path.split("/").slice(-1)[0];
    out.push(`log ${name} (${path}): ${lines.length} new lines`);
    for (const l of lines.slice(0, maxLinesPerFile)) out.push(`    ${l.slice(0, 400)}`);
    if (lines.length > maxLinesPerFile) out.push(`    ... last: ${lines.at(-1)!.slice(0, 400)}`);
  }
  return out;
}

/** Every check of a scenario, collected so a failing run names all of them at once. */
function commonChecks(r: LoadReport, recoveryFrom: string): string[] {
  const failures: string[] = [];
  if (r.connectionErrors !== 0)
    failures.push(`${r.connectionErrors} requests got no HTTP answer: ${JSON.stringify(r.connectionErrorsByCode)}`);
  const unexpected = Object.keys(r.byStatus).filter((s) => !allowed.has(Number(s)));
  if (unexpected.length)
    failures.push(
      `statuses outside {200, 409, 503, 504}: ${unexpected.map((s) => `${s} x${r.byStatus[s]}`).join(", ")}`,
    );
  if (Object.keys(r.other409).length)
    failures.push(`409s other than conflicts and in-progress retries: ${JSON.stringify(r.other409)}`);
  if (r.lostWrites !== 0)
    failures.push(`${r.lostWrites} acknowledged writes lost: ${JSON.stringify(r.lost.slice(0, 3))}`);
  if (r.unverified.length)
    failures.push(`${r.unverified.length} slots could not be read back: ${JSON.stringify(r.unverified.slice(0, 3))}`);
  // A baseline near zero would make any throughput count as recovered.
  if (!(r.baselinePerSecond >= clients / 4))
    failures.push(`no steady load before the fault: baseline ${r.baselinePerSecond} accepted/s, below ${clients / 4}`);
  const rec = r.recovery.find((x) => x.from === recoveryFrom)!;
  if (!(rec.recoveryMs <= maxRecoveryMs))
    failures.push(
      `throughput not steadily back to 50% of ${r.baselinePerSecond}/s within ${maxRecoveryMs} ms of "${recoveryFrom}" (${rec.recoveryMs} ms)`,
    );
  return failures;
}

/** Writes a scenario's timeline (ms from its start, status, latency, client) next to the service logs. */
async function saveTimeline(
  name: string,
  timeline: { t: number; status: number | string; ms: number; client: number }[],
  startedAt: number,
) {
  const path = join(d.logs, `timeline-${name}.json`);
  await Bun.write(
    path,
    JSON.stringify(
      timeline.map((a) => ({
        at: Math.round(a.t - startedAt),
        status: a.status,
        ms: Math.round(a.ms),
        client: a.client,
      })),
    ),
  );
  return `timeline: ${path}`;
}

/**
 * FerretDB's failed `_leases` inserts per second of a scenario (its log has one duplicate-key ERROR
 * per try): how many writers were spinning on a per-document lease (shared/store/mongo-lease.ts).
 */
async function leaseContention(from: number, startWall: number): Promise<string> {
  const text = (
    await Bun.file(ferret.log)
      .text()
      .catch(() => "")
  ).slice(from);
  const perSecond: number[] = [];
  for (const m of text.matchAll(
    /^time=(\S+) level=ERROR .*duplicate key value violates unique constraint \\"_leases/gm,
  )) {
    const i = Math.floor((Date.parse(m[1]!) - startWall) / 1000);
    if (i >= 0) perSecond[i] = (perSecond[i] ?? 0) + 1;
  }
  return `FerretDB failed lease inserts per s (writers waiting on a held lease): [${Array.from(perSecond, (n) => n ?? 0).join(", ")}]`;
}

/**
 * Leases and pending idempotency claims in the deployment's database a moment after a fault: those
 * taken before `faultWall` belong to operations the fault cut off (a healthy holder keeps a lease for
 * milliseconds), and block their documents until they expire (shared/store/mongo-lease.ts).
 */
async function storeLeftovers(what: string, faultWall: number): Promise<string[]> {
  const client = new MongoClient(ferret.url, { serverSelectionTimeoutMS: 3_000 });
  try {
    const db = client.db(d.db);
    const now = Date.now();
    const leases = await db.collection<{ _id: string; owner: string; expiresAt: number }>("_leases").find({}).toArray();
    const stale = leases
      .filter((l) => l.expiresAt - leaseMs < faultWall && l.expiresAt > now)
      .sort((a, b) => a.expiresAt - b.expiresAt);
    const claims = await db
      .collection<{ _id: string; state: string; claimedUntil: number; createdAt: string }>("idempotencyKeys")
      .find({ state: "pending" })
      .toArray();
    const staleClaims = claims.filter((c) => Date.parse(c.createdAt) < faultWall && c.claimedUntil > now);
    const kinds: Record<string, number> = {};
    for (const l of stale) kinds[l._id.split(":")[0]!] = (kinds[l._id.split(":")[0]!] ?? 0) + 1;
    const at = (t: number) => `${t >= faultWall ? "+" : ""}${((t - faultWall) / 1000).toFixed(1)} s`;
    return [
      `store ${at(now)} after ${what}: ${stale.length} unexpired leases taken before it ${JSON.stringify(kinds)}${stale.length ? `, the last expiring at ${at(stale.at(-1)!.expiresAt)}` : ""};`,
      `  ${staleClaims.length} idempotency claims from before it still pending (a retry with their key is 409 in_progress until claimedUntil)`,
      ...stale
        .slice(0, 3)
        .map((l) => `    lease ${l._id} taken at ${at(l.expiresAt - leaseMs)}, expires at ${at(l.expiresAt)}`),
    ];
  } catch (err) {
    return [`store leftovers not read: ${(err as Error).message}`];
  } finally {
    await client.close().catch(() => {});
  }
}

const report = (r: LoadReport, extra: string[] = []) => console.log(`${formatReport(r, extra)}\n`);

describe("faults of the distributed deployment under steady load", () => {
  beforeAll(async () => {
    const t0 = performance.now();
    [cluster, ferret] = await Promise.all([startNatsCluster(), startFerretOnPostgres()]);
    d = await startDistributed({
      natsUrl: cluster.url,
      mongoUrl: ferret.url,
      copies: Object.fromEntries(allServices.map((name) => [name, 2])),
      env: { SAVEPOINT_BUS_TIMEOUT_MS: String(busTimeoutMs) },
    });
    // Both copies of every service have subscribed before any fault.
    for (const name of allServices) await waitForSubscribers(cluster, name, 2);
    fleet = await createLoadFleet(d, { clients });
    // The first seconds of load are slow (collections created, caches and pools filled): warm up, so
    // each scenario's baseline is the deployment's steady rate.
    const warm = fleet.start("warm-up");
    // Until the last second's accepted writes reach one per client (at least 2 s, at most 8 s).
    const lastSecond = () => warm.timeline.filter((a) => a.status === 200 && a.t >= performance.now() - 1_000).length;
    while (
      performance.now() - warm.startedAt < 8_000 &&
      (performance.now() - warm.startedAt < 2_000 || lastSecond() < clients)
    )
      await Bun.sleep(250);
    const warmed = await warm.stop();
    const metrics = await fetch(`http://127.0.0.1:${d.metricsPorts.find((p) => p)}/healthz`, {
      signal: AbortSignal.timeout(1_000),
    }).then(
      (res) => `answers ${res.status}`,
      (err) => `does not answer (${(err as Error).message})`,
    );
    console.log(
      [
        `==== topology (ready in ${((performance.now() - t0) / 1000).toFixed(1)} s) ====`,
        `store: ${ferret.note} (${ferret.url}, log ${ferret.log})`,
        `nats: ${cluster.nodes.map((n) => `${n.name} ${n.url} (monitor ${n.monitorPort}, log ${n.log})`).join("; ")}`,
        `services (NATS_URL per process: nats.js reads only the last URL of a comma-separated list):`,
        ...d.processes.map(
          (p) =>
            `  ${p.name} pid ${p.pid} ${p.natsUrl}${p.metricsPort ? ` metrics ${p.metricsPort}` : ""}${p.port ? ` http ${p.port}` : ""} log ${p.log}`,
        ),
        `SAVEPOINT_METRICS_PORT /healthz of the first service: ${metrics}`,
        `load: ${clients} clients, one account and slot each, pinned to gateways ${d.bases.join(", ")}`,
        `logs and timelines: ${d.logs} (removed at the end of the run unless SAVEPOINT_KEEP_TEMP=1)`,
        `warm-up: ${warmed.seconds.toFixed(1)} s, accepted per s [${warmed.perSecond.join(", ")}], answers ${JSON.stringify(warmed.byStatus)}, lost writes ${warmed.lostWrites}`,
        "",
      ].join("\n"),
    );
  }, 90_000);

  afterAll(async () => {
    await d?.stop();
    await Promise.all([ferret?.stop(), cluster?.stop()]);
    console.log(`faults.test.ts: ${((performance.now() - fileStarted) / 1000).toFixed(1)} s in all`);
  }, 30_000);

  test("a. kill -9 one copy of the accounts service mid-load", async () => {
    const sizes = logSizes();
    const load = fleet.start("a. kill -9 one accounts copy");
    const startWall = Date.now();
    await Bun.sleep(beforeFaultMs);
    const victim = d.byName.accounts.find((p) => p.exitCode === null && p.signalCode === null)!;
    load.mark("kill accounts");
    const killedAtWall = Date.now();
    victim.kill("SIGKILL");
    await Bun.sleep(500);
    const leftovers = await storeLeftovers("the kill", killedAtWall);
    await Bun.sleep(6_500);
    const r = await load.stop();
    const failures = commonChecks(r, "kill accounts");
    report(r, [
      `killed accounts pid ${victim.pid} (${d.processOf(victim)?.log})`,
      ...leftovers,
      await saveTimeline("a", load.timeline, load.startedAt),
      await leaseContention(sizes.get(ferret.log) ?? 0, startWall),
      ...(await logsSince(sizes)),
      ...failures.map((f) => `FAILED: ${f}`),
    ]);
    // Two copies again for the scenarios after this one.
    d.spawn("accounts");
    await waitForSubscribers(cluster, "accounts", 2);
    expect(failures).toEqual([]);
  }, 45_000);

  test("b. SIGKILL one NATS cluster node mid-load, restart it 3 s later", async () => {
    const sizes = logSizes();
    // The node most clients are on: the one whose loss moves the most connections.
    const loads = await Promise.all(
      cluster.nodes.map(async (n) => ({ n, connections: (await n.monitor("/varz")).connections as number })),
    );
    const { n: node, connections } = loads.sort((a, b) => b.connections - a.connections)[0]!;
    const load = fleet.start(`b. SIGKILL NATS node ${node.name}, restart after 3 s`);
    const startWall = Date.now();
    await Bun.sleep(beforeFaultMs);
    load.mark(`kill ${node.name}`);
    await node.kill("SIGKILL");
    await Bun.sleep(3_000);
    load.mark(`restart ${node.name}`);
    await node.restart();
    await Bun.sleep(6_000);
    const r = await load.stop();
    await cluster.ready(20_000);
    const failures = commonChecks(r, `kill ${node.name}`);
    report(r, [
      `killed ${node.name} (${connections} client connections, log ${node.log})`,
      await saveTimeline("b", load.timeline, load.startedAt),
      await leaseContention(sizes.get(ferret.log) ?? 0, startWall),
      ...(await logsSince(sizes)),
      ...failures.map((f) => `FAILED: ${f}`),
    ]);
    expect(failures).toEqual([]);
  }, 45_000);

  test("c. SIGKILL the store (FerretDB), down 3 s, restart on the same port", async () => {
    const sizes = logSizes();
    const load = fleet.start(`c. SIGKILL FerretDB (${ferret.handler}), down 3 s, restart`);
    const startWall = Date.now();
    await Bun.sleep(beforeFaultMs);
    const killedAt = load.mark("kill ferretdb");
    const killedAtWall = Date.now();
    await ferret.kill("SIGKILL");
    await Bun.sleep(3_000);
    const restartedAt = load.mark("restart ferretdb");
    await ferret.restart();
    await Bun.sleep(500);
    // What the outage left in the store: per-document leases (FerretDB's conditional updates) and
    // idempotency claims whose holders failed while the store was down.
    const leftovers = await storeLeftovers("the kill", killedAtWall);
    await Bun.sleep(6_500);
    const r = await load.stop();
    const failures = commonChecks(r, "restart ferretdb");
    // While the store is down the services answer 503 (out of reach), never a 500.
    const during: Record<string, number> = {};
    for (const a of load.timeline)
      if (a.t >= killedAt && a.t < restartedAt) during[a.status] = (during[a.status] ?? 0) + 1;
    if (!(r.byStatus["503"] ?? 0)) failures.push("no 503 answered for the outage");
    const other5xx = Object.keys(r.byStatus).filter((s) => Number(s) >= 500 && s !== "503" && s !== "504");
    if (other5xx.length)
      failures.push(`5xx other than 503/504: ${other5xx.map((s) => `${s} x${r.byStatus[s]}`).join(", ")}`);
    report(r, [
      `store: ${ferret.note}`,
      `answers while the store was down: ${JSON.stringify(during)}`,
      ...leftovers,
      await saveTimeline("c", load.timeline, load.startedAt),
      await leaseContention(sizes.get(ferret.log) ?? 0, startWall),
      ...(await logsSince(sizes)),
      ...failures.map((f) => `FAILED: ${f}`),
    ]);
    expect(failures).toEqual([]);
  }, 45_000);
});
