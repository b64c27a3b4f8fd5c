import { join } from "node:path";
import { buildIdleGame, sources } from "../../sdk-unity/Tools~/build.ts";
import { admin, newTenant } from "../helpers/api.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { monoTools } from "../helpers/tools.ts";

/**
 * C# client rows (sdk-unity/README.md): durable `Save` latency on FileStorage (p50, p99), and a replay of
 * BENCH_SDK_CHANGES queued changes (default 1,000) against the embedded server, beside the same syncs sent
 * directly with the typed API. `bun run bench` runs it as rows C1 and C2; alone, `bun tests/bench/csharp.ts`
 * prints JSON rows. Timing fails nothing.
 */
const changes = Number(process.env.BENCH_SDK_CHANGES ?? (process.env.BENCH_SMOKE === "1" ? 50 : 1_000));
const tools = monoTools();
if (!tools) throw new Error("Mono is missing (npm test installs it as root)");
const bin = tempDir("bench-cs");
await buildIdleGame(bin);
const compiled = Bun.spawnSync([
  tools.mcs,
  "-langversion:7.2",
  "-nologo",
  "-target:exe",
  `-out:${join(bin, "Bench.exe")}`,
  "-r:System.Net.Http",
  `-r:${join(bin, "Newtonsoft.Json.dll")}`,
  `-r:${join(bin, "Savepoint.Client.dll")}`,
  ...sources(join(import.meta.dir, "cs")),
]);
if (compiled.exitCode !== 0) throw new Error(`mcs Bench.exe:\n${compiled.stdout}${compiled.stderr}`);

const d = await startEmbedded({ LOG_LEVEL: "error" });
const t = await newTenant(d);
await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, {
  maxQueuedLocalSnapshots: changes,
  minRemoteSyncIntervalSeconds: 3600,
});
await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
  rateLimits: { sessionRequestsPerMinute: 1_000_000_000 },
});
// Asynchronous: the server answers from this process's event loop.
const proc = Bun.spawn(
  [tools.mono, join(bin, "Bench.exe"), d.base, t.key, String(changes), tempDir("bench-cs-saves")],
  { stdout: "pipe", stderr: "inherit" },
);
const out = await new Response(proc.stdout).text();
const code = await proc.exited;
for (const line of out.split("\n").filter((l) => l.startsWith("{"))) console.log(line);
await d.stop();
process.exit(code);
