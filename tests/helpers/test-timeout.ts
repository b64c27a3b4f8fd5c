import { readFileSync } from "node:fs";

/** What every suite may take per test: integration suites start real NATS, FerretDB and service processes. */
export const defaultTestTimeoutMs = 60_000;

/**
 * This `bun test`'s own command line. Bun hides its flags from `process.argv`, so it is read from
 * /proc where there is one, else from `ps`; undefined when neither answers.
 */
function commandLine(): string[] | undefined {
  try {
    return readFileSync("/proc/self/cmdline", "utf8").split("\0");
  } catch {
    const ps = Bun.spawnSync(["ps", "-o", "args=", "-p", String(process.pid)], { stdout: "pipe", stderr: "ignore" });
    return ps.exitCode === 0 ? ps.stdout.toString().trim().split(/\s+/) : undefined;
  }
}

/** Whether the command line set its own per-test timeout, which a default set in code would override. */
export function timeoutGivenOnCommandLine(): boolean {
  const args = commandLine();
  return args === undefined || args.some((a) => a === "--timeout" || a.startsWith("--timeout="));
}
