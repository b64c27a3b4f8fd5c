import { join } from "node:path";
import { adminToken } from "./deployments.ts";
import { trackChild } from "./infra.ts";
import { waitForPort } from "./ports.ts";

/**
 * The embedded deployment as its own process (`services/main.ts`) on `dataDir` and `port`, for tests
 * that kill it (a failpoint, SIGKILL) and start it again on the same data. Resolves once it listens.
 */
export async function spawnEmbedded(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
): Promise<Bun.Subprocess> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "services", "main.ts")], {
    env: {
      ...process.env,
      SAVEPOINT_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      SAVEPOINT_ADMIN_TOKEN: adminToken,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdout: "ignore",
    stderr: "ignore",
  });
  trackChild(proc);
  await waitForPort(port, 30_000, "savepoint");
  return proc;
}
