import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where the test command keeps what it builds once per machine (FerretDB). */
export const toolCache = process.env.SAVEPOINT_TOOL_CACHE ?? join(homedir(), ".cache", "savepoint");
export const ferretdbBin = process.env.FERRETDB_BIN ?? join(toolCache, "bin", "ferretdb-1.24.2");

/** nats-server from PATH or Debian's location. */
export function natsServerBin(): string | undefined {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  const onPath = Bun.which("nats-server");
  if (onPath) return onPath;
  return existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : undefined;
}

/** haproxy for the proxy config's checks: HAPROXY_BIN, on PATH, or Debian's location. */
export function haproxyBin(): string | undefined {
  if (process.env.HAPROXY_BIN) return process.env.HAPROXY_BIN;
  return Bun.which("haproxy") ?? (existsSync("/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : undefined);
}

/** Chromium for the browser test: CHROMIUM_BIN, Debian's /usr/bin/chromium, or one on PATH. */
export function chromiumBin(): string | undefined {
  if (process.env.CHROMIUM_BIN) return process.env.CHROMIUM_BIN;
  if (existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  return Bun.which("chromium") ?? undefined;
}

/** Chromium's flags for every browser suite: headless, and none of its calls to a network this machine does not have. */
export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];

/** Chromium's path, or an error saying how to get it. */
export function requireChromium(): string {
  const bin = chromiumBin();
  if (!bin)
    throw new Error("Chromium is missing: `npm test` installs it (apt-get install chromium), or set CHROMIUM_BIN");
  return bin;
}

/** True when a Docker engine answers on its socket (the client alone is not enough). */
export async function dockerAnswers(): Promise<boolean> {
  const socket = process.env.DOCKER_HOST?.replace(/^unix:\/\//, "") ?? "/var/run/docker.sock";
  if (!existsSync(socket)) return false;
  try {
    const res = await fetch("http://localhost/_ping", {
      unix: socket,
      signal: AbortSignal.timeout(2_000),
    } as RequestInit);
    return res.ok;
  } catch {
    return false;
  }
}

/** Mono and the C# client's test references (Debian: mono-complete, libnewtonsoft-json-cil-dev, nunit-console). */
export function monoTools():
  | { mcs: string; mono: string; nunitConsole: string; nunitFramework: string; newtonsoft: string }
  | undefined {
  const mcs = Bun.which("mcs");
  const mono = Bun.which("mono");
  const nunitConsole = existsSync("/usr/lib/nunit/nunit-console.exe") ? "/usr/lib/nunit/nunit-console.exe" : undefined;
  // The framework the console runner loads: the GAC's copy of its own version.
  const gac = "/usr/lib/mono/gac/nunit.framework";
  const version = existsSync(gac) ? [...new Bun.Glob("*/nunit.framework.dll").scanSync(gac)].sort().at(-1) : undefined;
  const newtonsoft = "/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll";
  if (!mcs || !mono || !nunitConsole || !version || !existsSync(newtonsoft)) return undefined;
  return { mcs, mono, nunitConsole, nunitFramework: join(gac, version), newtonsoft };
}
