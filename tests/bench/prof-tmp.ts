import { join } from "node:path";
import { adminToken } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";
import { measure } from "./load.ts";
import { conflicts, reads, syncs, tenant } from "./workloads.ts";

const root = join(import.meta.dir, "..", "..");
const kind = process.argv[2] ?? "save";
const dir = `/tmp/prof/${kind}-${process.pid}`;
const port = freePort();
const proc = Bun.spawn(
  [
    process.execPath,
    "--cpu-prof",
    "--cpu-prof-md",
    `--cpu-prof-dir=${dir}`,
    join(root, process.env.SCRIPT ?? "services/main.ts"),
  ],
  {
    cwd: root,
    env: {
      ...process.env,
      LOG_LEVEL: "error",
      PORT: String(port),
      HOST: "127.0.0.1",
      SAVEPOINT_DATA_DIR: tempDir("prof"),
      SAVEPOINT_ADMIN_TOKEN: adminToken,
      SAVEPOINT_TRUSTED_PROXIES: "127.0.0.1",
      NATS_URL: "",
      MONGODB_URL: "",
    },
    stdout: "ignore",
    stderr: "inherit",
  },
);
await waitForPort(port, 60000, "server");
const base = `http://127.0.0.1:${port}`;
const key = await tenant(base);
const work =
  kind === "load" ? reads(base, key, 1024) : kind === "conflict" ? conflicts(base, key, 1024) : syncs(base, key, 1024);
await measure([proc.pid], 16, 3, work);
const m = await measure([proc.pid], 16, Number(process.argv[3] ?? 10), work);
console.log(JSON.stringify({ rps: m.rps, cpuUs: m.cpuPerRequest * 1e6 }));
proc.kill("SIGTERM");
await proc.exited;
console.log(dir);
process.exit(0);
