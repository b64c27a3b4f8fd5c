import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFerretOnPostgres } from "../helpers/cluster.ts";
import { startNats } from "../helpers/infra.ts";
import { type Measured, measure } from "./load.ts";
import { type Comparison, comparePaired, formatComparison, type Spread, spread } from "./regression-verdict.ts";
import { type ServerOptions, startServer } from "./server-process.ts";
import { conflicts, reads, registers, syncs, tenant, type Worker } from "./workloads.ts";

/**
 * BENCH_BASELINE=<git ref>: the current server against the one of a baseline commit, row by row. Both
 * servers run at once on the server core, each started as `bun services/main.ts` from its own checkout
 * with only environment variables, so an old commit starts the same way; the load is this checkout's,
 * the same requests to both. Each row is measured BENCH_ROUNDS times, both servers loaded at once in
 * each round (their own clients each), so what the machine does to a round it does to both: on a busy
 * machine whose rounds of one server alone wandered by 15 to 50%, the pairs' new/old wandered by 3 to 27%
 * (issue 30). The rows take turns, one round each, so a machine that slows down for minutes (seen: 60%
 * within half an hour) slows every row alike, and a conflict's CPU is also read against the same round's
 * save's. Before the rounds, each row's BENCH_WARMUP seconds of its load, 20 unless set: at b64fd82 the
 * JIT's threads spent 106 µs of a save's 465 in the first 5 s of saves and 10 to 30 µs in the next 10 s
 * (f3d500d's: 47, then 0 to 6). CPU per request is each server process's own (from /proc/<pid>/stat),
 * its JIT's threads included.
 */
export interface RegressionSettings {
  root: string;
  baselineDir: string;
  baselineLabel: string;
  server: ServerOptions;
  clients: number;
  seconds: number;
  warmup: number;
  rounds: number;
  out: string;
  /** Runs `start` with what it spawns on the server core (NATS, FerretDB). */
  onServerCore: <T>(start: () => Promise<T>) => Promise<T>;
  /** BENCH_ROWS: only these rows (ids, comma-separated), for a change that touches one path; else all. */
  only?: readonly string[];
}

interface Load {
  id: string;
  what: string;
  make: (base: string, key: string) => Worker;
}

const kib = (n: number) => n * 1024;
const embeddedLoads: Load[] = [
  { id: "save-1k", what: "save, 1 KiB game state changing every write", make: (b, k) => syncs(b, k, kib(1)) },
  { id: "save-10k", what: "save, 10 KiB game state changing every write", make: (b, k) => syncs(b, k, kib(10)) },
  { id: "load-1k", what: "load a 1 KiB slot", make: (b, k) => reads(b, k, kib(1)) },
  { id: "load-10k", what: "load a 10 KiB slot", make: (b, k) => reads(b, k, kib(10)) },
  {
    id: "conflict-1k",
    what: "conflict: a stale 1 KiB save, 409 with the server's",
    make: (b, k) => conflicts(b, k, kib(1)),
  },
  {
    id: "identical-1k",
    what: "identical save: the same 1 KiB every write (not stored again)",
    make: (b, k) => syncs(b, k, kib(1), { identical: true }),
  },
  { id: "register", what: "account creation", make: (b, k) => registers(b, k) },
];
const distributedLoads: Load[] = [
  { id: "nats-save-1k", what: "save 1 KiB, services/main.ts on NATS + FerretDB", make: (b, k) => syncs(b, k, kib(1)) },
  { id: "nats-load-1k", what: "load 1 KiB, services/main.ts on NATS + FerretDB", make: (b, k) => reads(b, k, kib(1)) },
];

interface Result {
  id: string;
  what: string;
  throughput: Comparison;
  cpu: Comparison;
  newer: Measured[];
  older: Measured[];
}

export async function compareWithBaseline(s: RegressionSettings): Promise<void> {
  const results: Result[] = [];
  const skipped: Record<string, string> = {};
  console.log(
    `bench against baseline ${s.baselineLabel}: ${s.clients} clients, ${s.seconds} s per measurement, ${s.rounds} rounds with both servers loaded at once, ${s.warmup} s warm-up per row\n`,
  );

  const side = async (root: string, env: Record<string, string>) => {
    const server = await startServer(root, "services/main.ts", env, s.server);
    return { server, key: await tenant(server.base) };
  };

  const chosen = (loads: Load[]) => loads.filter((l) => !s.only || s.only.includes(l.id));
  const run = async (loads: Load[], newer: Awaited<ReturnType<typeof side>>, older: typeof newer) => {
    // Each round's players (new accounts) are made on both servers before either is measured.
    const players = (load: Load, x: typeof newer) => {
      const make = load.make(x.server.base, x.key);
      return Promise.all(Array.from({ length: s.clients }, () => make()));
    };
    // Both at once: what the machine does to one round, it does to both sides of it.
    const pair = async (load: Load, seconds: number) => {
      const [n, o] = await Promise.all([players(load, newer), players(load, older)]);
      return Promise.all([
        measure(newer.server.pids, s.clients, seconds, async (i) => n[i]!),
        measure(older.server.pids, s.clients, seconds, async (i) => o[i]!),
      ]);
    };
    const rows = chosen(loads).map((load) => ({ load, ns: [] as Measured[], os: [] as Measured[] }));
    if (s.warmup > 0) for (const { load } of rows) await pair(load, s.warmup);
    for (let i = 0; i < s.rounds; i++)
      for (const row of rows) {
        const [n, o] = await pair(row.load, s.seconds);
        row.ns.push(n);
        row.os.push(o);
      }
    for (const { load, ns, os } of rows) {
      const r: Result = {
        id: load.id,
        what: load.what,
        throughput: comparePaired(
          ns.map((m) => m.rps),
          os.map((m) => m.rps),
          "higher",
        ),
        cpu: comparePaired(
          ns.map((m) => m.cpuPerRequest),
          os.map((m) => m.cpuPerRequest),
          "lower",
        ),
        newer: ns,
        older: os,
      };
      results.push(r);
      const errors = [...ns, ...os].reduce((n, m) => n + m.errors, 0);
      console.log(`${r.id.padEnd(13)} ${r.what}${errors > 0 ? `  (${errors} requests failed)` : ""}`);
      console.log(`              ${formatComparison(r.throughput, "throughput")}`);
      console.log(`              ${formatComparison(r.cpu, "cpu")}`);
    }
  };

  const stops: (() => unknown)[] = [];
  try {
    const newer = await side(s.root, {});
    stops.push(newer.server.stop);
    const older = await side(s.baselineDir, {});
    stops.push(older.server.stop);
    await run(embeddedLoads, newer, older);
    newer.server.stop();
    older.server.stop();

    // The distributed path where an old commit can run it too: the all-in-one process on NATS and
    // FerretDB (each side its own NATS, so neither serves the other's requests; one FerretDB, two databases).
    if (chosen(distributedLoads).length > 0)
      try {
        const ferret = await s.onServerCore(() => startFerretOnPostgres());
        stops.push(ferret.stop);
        const natsNew = await s.onServerCore(() => startNats());
        const natsOld = await s.onServerCore(() => startNats());
        stops.push(natsNew.stop, natsOld.stop);
        const db = (label: string) => `bench_${label}_${crypto.randomUUID().slice(0, 8)}`;
        // Keys a distributed process requires (newer commits refuse to start without them); older ones ignore them.
        const secrets = { SAVEPOINT_TRANSFER_SECRET: "t".repeat(43), SAVEPOINT_LINK_SECRET: "l".repeat(43) };
        const env = (nats: string, label: string) => ({
          NATS_URL: nats,
          // A small pool a side: the PostgreSQL behind FerretDB is shared, and its connections run out first.
          MONGODB_URL: `${ferret.url}?maxPoolSize=8`,
          MONGODB_DB: db(label),
          ...secrets,
        });
        let dNew: Awaited<ReturnType<typeof side>> | undefined;
        let dOld: typeof dNew;
        try {
          dNew = await side(s.root, env(natsNew.url, "new"));
          stops.push(dNew.server.stop);
          dOld = await side(s.baselineDir, env(natsOld.url, "old"));
          stops.push(dOld.server.stop);
        } catch (e) {
          for (const l of distributedLoads) skipped[l.id] = (e as Error).message;
        }
        if (dNew && dOld) await run(distributedLoads, dNew, dOld);
      } catch (e) {
        for (const l of distributedLoads) skipped[l.id] ??= (e as Error).message;
      }
    for (const [id, why] of Object.entries(skipped)) console.log(`${id.padEnd(13)} not measured: ${why}`);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }

  // What a stale client costs against a real write (issue 30: at most half), round by round on each server.
  const share = conflictShare(results);
  if (share)
    console.log(
      `\na conflict's CPU / an accepted 1 KiB save's, round by round: new ${share.newer.median.toFixed(2)} (${share.newer.min.toFixed(2)}..${share.newer.max.toFixed(2)}), old ${share.older.median.toFixed(2)}`,
    );
  const slower = results.filter((r) => r.throughput.verdict === "worse" || r.cpu.verdict === "worse");
  console.log(
    slower.length === 0
      ? "\nno row is worse than the baseline beyond noise"
      : `\nworse than the baseline beyond noise: ${slower.map((r) => r.id).join(", ")}`,
  );
  mkdirSync(s.out, { recursive: true });
  const file = join(s.out, "vs-baseline.json");
  await Bun.write(
    file,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        baseline: s.baselineLabel,
        checkout: s.baselineDir,
        settings: { clients: s.clients, seconds: s.seconds, warmup: s.warmup, rounds: s.rounds },
        rows: Object.fromEntries(results.map(({ id, ...rest }) => [id, rest])),
        conflictShare: share,
        skipped,
      },
      null,
      2,
    ),
  );
  console.log(`written to ${file}`);
}

/** Each round's conflict-1k CPU per request over the same round's save-1k (the rows take turns), per server. */
function conflictShare(results: Result[]): { newer: Spread; older: Spread } | undefined {
  const save = results.find((r) => r.id === "save-1k");
  const stale = results.find((r) => r.id === "conflict-1k");
  if (!save || !stale) return undefined;
  const per = (side: "newer" | "older") =>
    spread(stale[side].map((m, i) => m.cpuPerRequest / save[side][i]!.cpuPerRequest));
  return { newer: per("newer"), older: per("older") };
}
