import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildFerretdb } from "../../scripts/build-ferretdb.ts";
import { ensureNats } from "../../scripts/ensure-test-tools.ts";
import { startFerretOnPostgres } from "../helpers/cluster.ts";
import { startDistributed } from "../helpers/deployments.ts";
import { startNats, tempDir, trackChild } from "../helpers/infra.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";
import { admittedThroughGateways } from "./limits.ts";
import { type Measured, measure, rssMiB } from "./load.ts";
import { compareWithBaseline } from "./regression.ts";
import { withBaselineCheckout } from "./regression-worktree.ts";
import { startServer } from "./server-process.ts";
import { bare, conflicts, countAccepted, reads, registers, syncs, tenant, type Worker } from "./workloads.ts";

/**
 * `bun run bench`: every row of issue 11's targets in one run. Each comparison is interleaved (A, B,
 * A, B, ...) BENCH_ROUNDS times and the medians are compared; every server gets BENCH_WARMUP seconds
 * of its own load first. The load generator is this process, pinned to core 0 with taskset where there
 * is one; single-process servers are pinned to core 1. Server CPU per request is read from
 * /proc/<pid>/stat. Prints the table and writes tests/bench/results/latest.json (or into BENCH_OUT).
 * BENCH_SMOKE=1 runs everything briefly (CI checks that every row is printed); timing never fails
 * anything. The saves sent are a game's (workloads.ts, game-save.ts): each differs from the last and
 * keeps its size; the same save sent again and again is row G3i of its own. BENCH_BASELINE=<git ref>
 * measures this checkout's server against that commit's instead (regression.ts).
 */
const smoke = process.env.BENCH_SMOKE === "1";
// A baseline run (regression.ts) compares a few rows, each within the noise of its paired rounds: it
// warms each server longer and takes more rounds than the table does.
const baselineDir = process.env.BENCH_BASELINE_DIR;
const seconds = Number(process.env.BENCH_SECONDS ?? (smoke ? 0.5 : 5));
const warmup = Number(process.env.BENCH_WARMUP ?? (smoke ? 0.2 : baselineDir ? 20 : 10));
const rounds = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : baselineDir ? 5 : 3));
const clients = Number(process.env.BENCH_WORKERS ?? 16);
const m1Requests = Number(process.env.BENCH_M1_REQUESTS ?? (smoke ? 300 : 100_000));
const root = join(import.meta.dir, "..", "..");
// A smoke run checks that every row is produced, not how fast: unpinned, so a machine whose core 0 is
// busy cannot starve it, and with waits long enough for any machine (issue 17, item 7).
const taskset = smoke ? null : Bun.which("taskset");
const startTimeoutMs = smoke ? 300_000 : 60_000;
const busTimeoutMs = smoke ? "60000" : "5000";

// What it runs against, made here as `dev:distributed` does: nats-server (apt-get when root) and the
// FerretDB build its distributed rows need, which a fresh clone has not got. Once, before pinning.
if (!process.env.BENCH_PINNED) {
  await ensureNats();
  await buildFerretdb();
}
// Stops here when asked to: the tool check alone (tests/unit/bench-tools.test.ts).
if (process.env.BENCH_TOOLS_ONLY === "1") {
  console.log("bench: tools ready (BENCH_TOOLS_ONLY=1: not measuring)");
  process.exit(0);
}

// The load generator on core 0; children get their own cores explicitly (they would inherit ours).
// BENCH_BASELINE: the baseline's checkout is made (and removed, however the run ends) by this first
// process, and the measuring one is always a child, pinned where it can be.
const baselineRef = process.env.BENCH_BASELINE;
if ((taskset || baselineRef) && !process.env.BENCH_PINNED) {
  const measuring = (env: Record<string, string>) =>
    Bun.spawn([...(taskset ? [taskset, "-c", "0"] : []), process.execPath, ...process.argv.slice(1)], {
      env: { ...process.env, BENCH_PINNED: "1", ...env },
      stdio: ["inherit", "inherit", "inherit"],
    }).exited;
  process.exit(
    baselineRef
      ? await withBaselineCheckout(root, baselineRef, (dir, commit) =>
          measuring({ BENCH_BASELINE_DIR: dir, BENCH_BASELINE_LABEL: `${baselineRef} (${commit.slice(0, 9)})` }),
        )
      : await measuring({}),
  );
}
const cores = (which: "server" | "all") => (taskset ? [taskset, "-c", which === "server" ? "1" : "0-1"] : []);

/**
 * Runs `start` with this process (every thread) on the server core, so what it spawns inherits that core
 * instead of the load generator's: the distributed deployment, its NATS and FerretDB. Back on core 0 after.
 */
async function onServerCore<T>(start: () => Promise<T>): Promise<T> {
  if (!taskset) return start();
  const pin = (cpus: string) =>
    Bun.spawn([taskset, "-a", "-p", "-c", cpus, String(process.pid)], { stdout: "ignore", stderr: "inherit" }).exited;
  await pin("1");
  try {
    return await start();
  } finally {
    await pin("0");
  }
}

const kib = (n: number) => n * 1024;

// BENCH_BASELINE: the rows of a game's requests, new against old, instead of the table.
if (baselineDir) {
  await compareWithBaseline({
    root,
    baselineDir,
    baselineLabel: process.env.BENCH_BASELINE_LABEL ?? "baseline",
    server: { pin: cores("server"), startTimeoutMs, busTimeoutMs },
    clients,
    seconds,
    warmup,
    rounds,
    out: process.env.BENCH_OUT ?? join(import.meta.dir, "results"),
    onServerCore,
    only: process.env.BENCH_ROWS?.split(",").map((id) => id.trim()),
  });
  process.exit(0);
}

// ---- processes ---------------------------------------------------------------------------------

const server = (script: string, env: Record<string, string>, pin: "server" | "all" = "server", logFile?: string) =>
  startServer(root, script, env, { pin: cores(pin), startTimeoutMs, busTimeoutMs, logFile });

async function raw(kind: string, extra: string[] = []): Promise<{ rps: number; cpuPerOp: number }> {
  const proc = Bun.spawn(
    [...cores("server"), process.execPath, join(import.meta.dir, "raw.ts"), kind, String(seconds), ...extra],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = JSON.parse(await new Response(proc.stdout).text()) as {
    ops: number;
    seconds: number;
    cpuSeconds: number;
  };
  return { rps: out.ops / out.seconds, cpuPerOp: out.cpuSeconds / out.ops };
}

// ---- workloads -----------------------------------------------------------------------------------

async function warm(pids: number[], make: Worker) {
  if (warmup > 0) await measure(pids, clients, warmup, make);
}

// ---- results --------------------------------------------------------------------------------------

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const med = (ms: Measured[], field: "rps" | "p50" | "p99" | "cpuPerRequest") => median(ms.map((m) => m[field]));

interface Row {
  id: string;
  what: string;
  measured: number;
  target: string;
  holds: boolean;
  unit: string;
  raw: Record<string, unknown>;
}
const rows: Row[] = [];
function row(
  id: string,
  what: string,
  measured: number,
  unit: string,
  target: string,
  holds: boolean,
  raw: Record<string, unknown>,
) {
  rows.push({ id, what, measured, target, holds, unit, raw });
  console.log(
    `${id.padEnd(4)} ${measured.toFixed(unit === "us" ? 0 : 2).padStart(8)}${unit.padEnd(3)} ${target.padEnd(10)} ${holds ? "holds" : "MISSES"}  ${what}`,
  );
  // Beside each ratio, the medians it was made of: requests/s, p50 and p99, server CPU per request.
  for (const [name, runs] of Object.entries(raw)) {
    if (!Array.isArray(runs) || runs.length === 0 || typeof runs[0] !== "object") continue;
    const m = (f: string) => median(runs.map((r: Record<string, number>) => r[f]!).filter((v) => v !== undefined));
    const http = "p50" in runs[0];
    const cpu = (http ? m("cpuPerRequest") : m("cpuPerOp")) * 1e6;
    console.log(
      `       ${name.padEnd(22)} ${m("rps").toFixed(0).padStart(7)}/s${http ? `  p50 ${m("p50").toFixed(2)} ms  p99 ${m("p99").toFixed(2)} ms` : ""}  CPU ${cpu.toFixed(0)} us/op`,
    );
  }
}
const absolute: Record<string, number> = {};
/** Server CPU per accepted embedded sync (gateway and services in one process), for D1. */
let embeddedCpuPerSync = NaN;

async function interleave<A, B>(a: () => Promise<A>, b: () => Promise<B>): Promise<[A[], B[]]> {
  const as: A[] = [];
  const bs: B[] = [];
  for (let i = 0; i < rounds; i++) {
    as.push(await a());
    bs.push(await b());
  }
  return [as, bs];
}

console.log(
  `bench: ${clients} clients, ${seconds} s per measurement, ${rounds} interleaved rounds, ${warmup} s warm-up per server${taskset ? ", load generator on core 0, servers on core 1" : ""}\n`,
);

// ---- G1, G2: the gateway and the bus hop ------------------------------------------------------------

{
  const body = kib(10);
  const baseline = await server("tests/bench/baseline.ts", {});
  const gateway = await server("tests/bench/gateway-only.ts", { ECHO: "direct" });
  const key = await tenant(gateway.base);
  await warm(baseline.pids, bare(baseline.base, body));
  await warm(gateway.pids, syncs(gateway.base, key, body));
  const [g, b] = await interleave(
    () => measure(gateway.pids, clients, seconds, syncs(gateway.base, key, body)),
    () => measure(baseline.pids, clients, seconds, bare(baseline.base, body)),
  );
  const throughput = med(g, "rps") / med(b, "rps");
  const cpu = med(g, "cpuPerRequest") / med(b, "cpuPerRequest");
  row(
    "G1",
    "gateway (auth, 10 KiB validation) vs bare Bun.serve: throughput",
    throughput,
    "x",
    ">= 0.80",
    throughput >= 0.8,
    { gateway: g, bare: b },
  );
  row("G1c", "gateway vs bare Bun.serve: CPU per request", cpu, "x", "<= 1.25", cpu <= 1.25, {
    gatewayCpuPerRequest: med(g, "cpuPerRequest"),
    bareCpuPerRequest: med(b, "cpuPerRequest"),
  });
  baseline.stop();
  gateway.stop();

  const nats = await startNats();
  const echo = Bun.spawn([...cores("server"), process.execPath, join(import.meta.dir, "echo.ts")], {
    env: { ...process.env, ECHO_NATS_URL: nats.url, LOG_LEVEL: "error" },
    stdout: "ignore",
    stderr: "inherit",
  });
  trackChild(echo);
  const local = await server("tests/bench/gateway-only.ts", { ECHO: "local" });
  const remote = await server("tests/bench/gateway-only.ts", { ECHO: "nats", ECHO_NATS_URL: nats.url });
  const localKey = await tenant(local.base);
  const remoteKey = await tenant(remote.base);
  const small = kib(1);
  await warm(local.pids, syncs(local.base, localKey, small));
  await warm([...remote.pids, echo.pid], syncs(remote.base, remoteKey, small));
  const one = async (s: typeof local, k: string) => measure(s.pids, 1, seconds, syncs(s.base, k, small));
  const [l1, r1] = await interleave(
    () => one(local, localKey),
    () => one(remote, remoteKey),
  );
  const addedUs = (med(r1, "p50") - med(l1, "p50")) * 1000;
  row(
    "G2",
    "bus hop at concurrency 1: p50 added by NATS over the in-process bus",
    addedUs,
    "us",
    "<= 120",
    addedUs <= 120,
    { local: l1, nats: r1 },
  );
  const [ls, rs] = await interleave(
    () => measure(local.pids, clients, seconds, syncs(local.base, localKey, small)),
    () => measure([...remote.pids, echo.pid], clients, seconds, syncs(remote.base, remoteKey, small)),
  );
  const saturated = med(rs, "rps") / med(ls, "rps");
  row("G2s", "bus hop at saturation: NATS vs in-process throughput", saturated, "x", ">= 0.60", saturated >= 0.6, {
    local: ls,
    nats: rs,
  });
  local.stop();
  remote.stop();
  echo.kill();
  nats.stop();
}

// ---- the embedded deployment ---------------------------------------------------------------------------

{
  const data = kib(1);
  const s = await server("services/main.ts", {});
  const key = await tenant(s.base);
  await warm(s.pids, syncs(s.base, key, data));
  const rssWarm = await rssMiB(s.pids[0]!);

  const [e, naive] = await interleave(
    () => measure(s.pids, clients, seconds, syncs(s.base, key, data)),
    () => raw("sqlite-update"),
  );
  const groups: { rps: number; cpuPerOp: number }[] = [];
  for (let i = 0; i < rounds; i++) groups.push(await raw("sqlite-group"));
  const vsNaive = med(e, "rps") / median(naive.map((n) => n.rps));
  const vsGroup = med(e, "rps") / median(groups.map((g) => g.rps));
  absolute["embedded durable slot syncs/s"] = med(e, "rps");
  embeddedCpuPerSync = med(e, "cpuPerRequest");
  row(
    "G3e",
    `embedded durable sync (1 KiB, ${clients} clients, FULL) vs raw UPDATE per commit; vs raw 16-per-commit ${vsGroup.toFixed(2)}x`,
    vsNaive,
    "x",
    ">= 1.0",
    vsNaive >= 1.0,
    { embedded: e, rawUpdatePerCommit: naive, rawGroupCommit: groups },
  );

  const [accepted, stale] = await interleave(
    () => measure(s.pids, clients, seconds, syncs(s.base, key, data)),
    () => measure(s.pids, clients, seconds, conflicts(s.base, key, data)),
  );
  const conflictCpu = med(stale, "cpuPerRequest") / med(accepted, "cpuPerRequest");
  row("G4", "a conflict vs an accepted sync: CPU per request", conflictCpu, "x", "<= 0.6", conflictCpu <= 0.6, {
    accepted,
    conflicts: stale,
  });
  const mixedAccepted: number[] = [];
  const clean: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const counter = { n: 0 };
    const mixed = await measure(s.pids, clients, seconds, countAccepted(s.base, key, data, 10, counter));
    mixedAccepted.push(counter.n / mixed.seconds);
    clean.push((await measure(s.pids, clients, seconds, syncs(s.base, key, data))).rps);
  }
  const mixedRatio = median(mixedAccepted) / median(clean);
  row("G4m", "accepted throughput with 10% stale writes vs none", mixedRatio, "x", ">= 0.9", mixedRatio >= 0.9, {
    acceptedPerSecondWithStale: mixedAccepted,
    acceptedPerSecondClean: clean,
  });

  // The same save every write: the server keeps no second identical snapshot, so this is the cheap case,
  // measured apart from the game-like rows above instead of standing in for them.
  const [same, changing] = await interleave(
    () => measure(s.pids, clients, seconds, syncs(s.base, key, data, { identical: true })),
    () => measure(s.pids, clients, seconds, syncs(s.base, key, data)),
  );
  const sameRatio = med(same, "rps") / med(changing, "rps");
  const sameWhat = "identical save (the same 1 KiB every write: not stored again) vs a changing one: throughput";
  row("G3i", sameWhat, sameRatio, "x", ">= 1.0", sameRatio >= 1.0, { identical: same, changing });

  // What the request log costs (docs/operating.md#logs): the production default, a line per request at
  // LOG_LEVEL info written to a file as a log shipper reads it, against the same server writing none.
  {
    const logDir = tempDir("bench-log");
    const logged = await server("services/main.ts", { LOG_LEVEL: "info" }, "server", join(logDir, "all.log"));
    const unlogged = await server(
      "services/main.ts",
      { LOG_LEVEL: "info", SAVEPOINT_REQUEST_LOG: "off" },
      "server",
      join(logDir, "off.log"),
    );
    const [loggedKey, unloggedKey] = [await tenant(logged.base), await tenant(unlogged.base)];
    await warm(logged.pids, syncs(logged.base, loggedKey, data));
    await warm(unlogged.pids, syncs(unlogged.base, unloggedKey, data));
    const [all, off] = await interleave(
      () => measure(logged.pids, clients, seconds, syncs(logged.base, loggedKey, data)),
      () => measure(unlogged.pids, clients, seconds, syncs(unlogged.base, unloggedKey, data)),
    );
    const logCost = med(all, "cpuPerRequest") / med(off, "cpuPerRequest");
    const q1What = "request log on (a line per request, the default) vs off: CPU per 1 KiB save";
    row("Q1", q1What, logCost, "x", "<= 1.10", logCost <= 1.1, { requestLogAll: all, requestLogOff: off });
    logged.stop();
    unlogged.stop();
  }

  const [gets, selects] = await interleave(
    () => measure(s.pids, clients, seconds, reads(s.base, key, kib(10))),
    () => raw("sqlite-select"),
  );
  const readRatio = med(gets, "rps") / median(selects.map((r) => r.rps));
  row("G5e", "embedded GET slot (10 KiB) vs raw SELECT", readRatio, "x", ">= 0.60", readRatio >= 0.6, {
    embedded: gets,
    rawSelect: selects,
  });

  // Against the statements on the service's own schema (its expression indexes and fuller documents cost
  // more than half of them), and on bare two-column tables as the first runs of this bench measured.
  const statements: { rps: number; cpuPerOp: number }[] = [];
  const bareStatements: { rps: number; cpuPerOp: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    statements.push(await raw("sqlite-sync-statements-schema"));
    bareStatements.push(await raw("sqlite-sync-statements"));
  }
  const cpuRatio = med(e, "cpuPerRequest") / median(statements.map((r) => r.cpuPerOp));
  const bareRatio = med(e, "cpuPerRequest") / median(bareStatements.map((r) => r.cpuPerOp));
  row(
    "G6",
    `server CPU per accepted embedded sync vs the raw statements it runs on its schema; vs bare tables ${bareRatio.toFixed(2)}x`,
    cpuRatio,
    "x",
    "<= 2.0",
    cpuRatio <= 2.0,
    { serverCpuPerSync: med(e, "cpuPerRequest"), rawStatements: statements, rawStatementsBareTables: bareStatements },
  );

  const [reg, before] = await interleave(
    () => measure(s.pids, clients, seconds, registers(s.base, key)),
    () => raw("sqlite-register-before"),
  );
  const registerRatio = med(reg, "rps") / median(before.map((r) => r.rps));
  row(
    "R1",
    "account creation end to end vs the old four-commit pattern on raw SQLite",
    registerRatio,
    "x",
    ">= 2.0",
    registerRatio >= 2.0,
    { register: reg, rawFourCommits: before },
  );

  const perClient = Math.ceil(m1Requests / clients);
  let sent = 0;
  const make = syncs(s.base, key, data);
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const send = await make();
      for (let i = 0; i < perClient; i++, sent++) await send();
    }),
  );
  const rssAfter = await rssMiB(s.pids[0]!);
  const growth = rssAfter / rssWarm;
  row(
    "M1",
    `RSS after ${sent.toLocaleString("en")} more requests vs after warm-up (embedded: gateway and services in one process)`,
    growth,
    "x",
    "<= 1.20",
    growth <= 1.2,
    { rssWarmMiB: rssWarm, rssAfterMiB: rssAfter, requests: sent },
  );
  s.stop();
}

/** A game client's bench (sdk.ts, csharp.ts) run on both cores: its save, replay, direct and ratio figures. */
async function clientFigures(script: string) {
  const proc = Bun.spawn([...cores("all"), process.execPath, join(import.meta.dir, script)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const lines = (await new Response(proc.stdout).text())
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, number>);
  if ((await proc.exited) !== 0 || lines.length < 4)
    throw new Error(`tests/bench/${script} failed: ${JSON.stringify(lines)}`);
  return lines as [Record<string, number>, Record<string, number>, Record<string, number>, Record<string, number>];
}

// ---- the SDK: local saves and a replay of queued changes (sdk/README.md) ----------------------------------

{
  const [save, replay, direct, ratio] = await clientFigures("sdk.ts");
  const saveWhat = `SDK save() with the file adapter, durable when it resolves: p50 (p99 ${save.p99!.toFixed(2)} ms)`;
  row("S1", saveWhat, save.p50!, "ms", "<= 16", save.p50! <= 16, save);
  const what = `SDK replay of ${replay.versionsAdded} queued changes (${replay.localWrites} local writes) vs the same syncs sent directly`;
  row("S2", what, ratio.ratio!, "x", "<= 2.0", ratio.ratio! <= 2, {
    replayMs: replay.ms,
    directMs: direct.ms,
    ...replay,
  });
}

// ---- the C# client (sdk-unity/README.md): the same two rows under Mono ------------------------------------------

{
  const [save, replay, direct, ratio] = await clientFigures("csharp.ts");
  row(
    "C1",
    `C# Save() on FileStorage, durable when it returns: p50 (p99 ${save.p99!.toFixed(2)} ms)`,
    save.p50!,
    "ms",
    "<= 16",
    save.p50! <= 16,
    save,
  );
  const what = `C# replay of ${replay.versionsAdded} queued changes (${replay.localWrites} local writes) vs the same syncs sent directly`;
  row("C2", what, ratio.ratio!, "x", "<= 2.0", ratio.ratio! <= 2, {
    replayMs: replay.ms,
    directMs: direct.ms,
    ...replay,
  });
}

/** Median CPU seconds per request of each service's processes (copies summed), over the rounds. */
function cpuByService(d: { processes: { name: string; pid: number }[] }, runs: Measured[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { name, pid } of d.processes) {
    const each = runs.map((r) => r.cpuPerRequestByPid[pid] ?? 0);
    out[name] = (out[name] ?? 0) + median(each);
  }
  return out;
}

/** Waits until a service copy's operator port says it is ready (its bus and store answer). */
async function ready(metricsPort: number | undefined) {
  const deadline = Date.now() + startTimeoutMs;
  while (metricsPort !== undefined && Date.now() < deadline) {
    if ((await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => undefined))?.ok) return;
    await Bun.sleep(100);
  }
  if (metricsPort === undefined) await Bun.sleep(3_000);
  else throw new Error("bench set-up: the second accounts copy did not become ready");
}

// ---- the distributed deployment ---------------------------------------------------------------------

{
  const ferret = await onServerCore(() => startFerretOnPostgres());
  const env = { LOG_LEVEL: "error", ...(smoke ? { SAVEPOINT_BUS_TIMEOUT_MS: busTimeoutMs } : {}) };
  const d = await onServerCore(() =>
    startDistributed({ mongoUrl: ferret.url, copies: { accounts: 1 }, env, readyTimeoutMs: startTimeoutMs }),
  );
  const pids = d.procs.map((p) => p.pid);
  const key = await tenant(d.base);
  const data = kib(1);
  await warm(pids, syncs(d.base, key, data));
  // FerretDB's findAndModify is not atomic, so the loop a store needs there is the driver's with the lease.
  const bare = (await raw("mongo-update", [ferret.url, d.db])).rps;
  const [dist, leased] = await interleave(
    () => measure(pids, clients, seconds, syncs(d.base, key, data)),
    () => raw("mongo-update-lease", [ferret.url, d.db]),
  );
  const ratio = med(dist, "rps") / median(leased.map((r) => r.rps));
  absolute["distributed durable slot syncs/s (1 accounts copy)"] = med(dist, "rps");
  const g3What = `distributed sync vs the driver's findOneAndUpdate with the lease FerretDB needs (${ferret.handler}); vs the bare loop ${(med(dist, "rps") / bare).toFixed(2)}x`;
  row("G3", g3What, ratio, "x", ">= 0.80", ratio >= 0.8, {
    distributed: dist,
    rawWithLease: leased,
    rawBarePerSecond: bare,
  });

  const [gets, finds] = await interleave(
    () => measure(pids, clients, seconds, reads(d.base, key, kib(10))),
    () => raw("mongo-find", [ferret.url, d.db]),
  );
  const readRatio = med(gets, "rps") / median(finds.map((r) => r.rps));
  row("G5d", "distributed GET slot (10 KiB) vs the driver's findOne", readRatio, "x", ">= 0.70", readRatio >= 0.7, {
    distributed: gets,
    rawFindOne: finds,
  });

  // Savepoint's own processes only (gateway and services; not NATS, FerretDB or PostgreSQL).
  const cpuRatio = med(dist, "cpuPerRequest") / embeddedCpuPerSync;
  const d1What = "Savepoint-process CPU per accepted distributed sync (gateway + services) vs the embedded one";
  row("D1", d1What, cpuRatio, "x", "<= 2.5", cpuRatio <= 2.5, {
    distributedCpuPerSync: med(dist, "cpuPerRequest"),
    embeddedCpuPerSync,
    byService: cpuByService(d, dist),
    distributed: dist,
  });

  // One copy and two, interleaved in this deployment: each round adds a second accounts copy, gives it
  // its own warm-up, measures, and drains it again (SIGTERM: it answers what it took, then exits).
  const live = () =>
    d.processes.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null).map((p) => p.pid);
  const ones: Measured[] = [];
  const twos: Measured[] = [];
  for (let i = 0; i < rounds; i++) {
    ones.push(await measure(live(), clients, seconds, syncs(d.base, key, data)));
    const second = await onServerCore(async () => d.spawn("accounts"));
    await ready(d.processOf(second)?.metricsPort);
    await warm(live(), syncs(d.base, key, data));
    twos.push(await measure(live(), clients, seconds, syncs(d.base, key, data)));
    second.kill();
    await second.exited;
  }
  const scale = med(twos, "rps") / med(ones, "rps");
  absolute["distributed durable slot syncs/s (2 accounts copies)"] = med(twos, "rps");
  row("D2", "2 accounts copies vs 1 copy: distributed sync throughput", scale, "x", ">= 1.0", scale >= 1.0, {
    twoCopies: twos,
    oneCopy: ones,
  });

  // A second gateway copy; the session's requests alternate between the two.
  const port = freePort();
  await onServerCore(async () => d.spawn("gateway", { PORT: String(port) }));
  await waitForPort(port, startTimeoutMs, "second gateway");
  const limit = 120;
  const limited = await tenant(d.base, limit);
  const l1 = await admittedThroughGateways([d.base, `http://127.0.0.1:${port}`], limited, limit);
  const share = l1.admitted / limit;
  const l1What = `admitted / limit for a session (${limit}/min, ${l1.sent} requests) through 2 gateways alternating per request`;
  row("L1", l1What, share, "x", "<= 1.02", share <= 1.02, { ...l1 });
  await d.stop();
  await ferret.stop();
}

console.log("\nabsolute:");
for (const [what, value] of Object.entries(absolute)) console.log(`  ${what}: ${value.toFixed(0)}`);

const out = process.env.BENCH_OUT ?? join(import.meta.dir, "results");
mkdirSync(out, { recursive: true });
await Bun.write(
  join(out, "latest.json"),
  JSON.stringify(
    {
      at: new Date().toISOString(),
      settings: { smoke, seconds, warmup, rounds, clients, m1Requests, pinned: Boolean(taskset) },
      rows: Object.fromEntries(
        rows.map((r) => [
          r.id,
          { what: r.what, measured: r.measured, unit: r.unit, target: r.target, holds: r.holds, raw: r.raw },
        ]),
      ),
      absolute,
    },
    null,
    2,
  ),
);
console.log(`\nwritten to ${join(out, "latest.json")}`);
process.exit(0);
