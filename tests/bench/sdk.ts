import { fileStorage } from "../../sdk/src/file.ts";
import { SavepointClient, systemClock } from "../../sdk/src/index.ts";
import { admin, newTenant } from "../helpers/api.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";

/**
 * SDK rows (sdk/README.md): local `save` latency with the file adapter (p50, p99), and a replay of
 * BENCH_SDK_CHANGES queued changes (default 1,000) against the embedded server, beside the same syncs
 * sent directly with fetch. `bun run bench` runs it as rows S1 and S2; alone, `bun tests/bench/sdk.ts`
 * prints JSON rows. Local writes are counted (each is an fsync with the file adapter). Timing fails nothing.
 */
const changes = Number(process.env.BENCH_SDK_CHANGES ?? (process.env.BENCH_SMOKE === "1" ? 50 : 1_000));
const d = await startEmbedded({ LOG_LEVEL: "error" });
const t = await newTenant(d);
await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, {
  maxQueuedLocalSnapshots: changes,
  minRemoteSyncIntervalSeconds: 3600,
});
await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
  rateLimits: { sessionRequestsPerMinute: 1_000_000_000 },
});

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
let online = true;
const files = fileStorage(tempDir("bench-sdk"));
let localWrites = 0;
const client = new SavepointClient({
  baseUrl: d.base,
  runtimeKey: t.key,
  storage: {
    ...files,
    set: (key, value) => {
      localWrites++;
      return files.set(key, value);
    },
  },
  clock: systemClock,
  browserLifecycle: false,
  replay: "all",
  fetch: (url, init) => (online ? fetch(url, init) : Promise.reject(new TypeError("offline"))),
  retry: { attempts: 1 },
});
await client.ensureAccount();
await client.save("main", { n: 0 });
await client.sync({ force: true });

// Queued while offline: each save is local only, and each becomes its own version when replayed.
online = false;
const latencies: number[] = [];
for (let n = 1; n <= changes; n++) {
  const started = performance.now();
  await client.save("main", { n, blob: "x".repeat(1024) });
  latencies.push(performance.now() - started);
}
latencies.sort((a, b) => a - b);
await client.settled();
online = true;
localWrites = 0;
const replayStarted = performance.now();
await client.reconnected();
const replayMs = performance.now() - replayStarted;
const replayWrites = localWrites;
const replayed = (await client.api.getSlot("main")).version - 1;

// The same number of syncs sent directly, one after another, on a slot of their own.
const session = (await client.store.getValue<{ accountId: string; token: string }>("session"))!;
const headers = {
  authorization: `Bearer ${t.key}`,
  "x-service-account-session": session.token,
  "content-type": "application/json",
};
await fetch(`${d.base}/api/v1/accounts/${session.accountId}/slots`, {
  method: "POST",
  headers,
  body: JSON.stringify({ slotId: "direct", data: {} }),
});
const directStarted = performance.now();
for (let n = 1; n <= changes; n++) {
  const res = await fetch(`${d.base}/api/v1/accounts/${session.accountId}/slots/direct/sync`, {
    method: "POST",
    headers: { ...headers, "idempotency-key": crypto.randomUUID() },
    body: JSON.stringify({ baseVersion: n, data: { n, blob: "x".repeat(1024) } }),
  });
  if (res.status !== 200) throw new Error(`direct sync ${n}: ${res.status}`);
}
const directMs = performance.now() - directStarted;

const rows = [
  {
    row: "sdk local save, file adapter (ms)",
    p50: +percentile(latencies, 50).toFixed(3),
    p99: +percentile(latencies, 99).toFixed(3),
    saves: changes,
  },
  {
    row: `sdk replay of ${changes} queued changes`,
    versionsAdded: replayed,
    localWrites: replayWrites,
    ms: Math.round(replayMs),
  },
  {
    row: `the same ${changes} syncs sent directly`,
    ms: Math.round(directMs),
    perChangeMs: +(directMs / changes).toFixed(3),
  },
  { row: "replay / direct", ratio: +(replayMs / directMs).toFixed(2) },
];
for (const r of rows) console.log(JSON.stringify(r));
client.close();
await d.stop();
process.exit(0);
