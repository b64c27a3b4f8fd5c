import { join } from "node:path";
import { adminToken } from "../helpers/deployments.ts";
import { tempDir, trackChild } from "../helpers/infra.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";

export interface ServerOptions {
  /** What the command starts with: `taskset -c 1` pins it to the server core, or nothing. */
  pin: string[];
  startTimeoutMs: number;
  busTimeoutMs: string;
  /** Where the server's log lines go: the bench's own output unless a file is named. */
  logFile?: string;
}

export interface BenchServer {
  base: string;
  pids: number[];
  stop(): void;
}

/**
 * `bun <root>/<script>` on a free port, with its own data directory and the admin token: a checkout's
 * server started only through its environment, as every version of `services/main.ts` reads it (so a
 * baseline commit's server starts the same way as the current one). Answers once it listens.
 */
export async function startServer(
  root: string,
  script: string,
  env: Record<string, string>,
  options: ServerOptions,
): Promise<BenchServer> {
  const port = freePort();
  const proc = Bun.spawn([...options.pin, process.execPath, join(root, script)], {
    cwd: root,
    env: {
      ...process.env,
      LOG_LEVEL: "error",
      PORT: String(port),
      HOST: "127.0.0.1",
      SAVEPOINT_DATA_DIR: tempDir("bench"),
      SAVEPOINT_ADMIN_TOKEN: adminToken,
      SAVEPOINT_TRUSTED_PROXIES: "127.0.0.1",
      SAVEPOINT_BUS_TIMEOUT_MS: options.busTimeoutMs,
      NATS_URL: "",
      MONGODB_URL: "",
      ...env,
    },
    stdout: "ignore",
    stderr: options.logFile ? Bun.file(options.logFile) : "inherit",
  });
  trackChild(proc);
  // A server that exits at start (a baseline that does not run here) says so at once, not at the timeout.
  const exited = proc.exited.then((code) => {
    throw new Error(`${root}/${script} exited with code ${code} before it listened`);
  });
  await Promise.race([waitForPort(port, options.startTimeoutMs, `${root}/${script}`), exited]);
  exited.catch(() => {});
  return { base: `http://127.0.0.1:${port}`, pids: [proc.pid], stop: () => proc.kill() };
}
