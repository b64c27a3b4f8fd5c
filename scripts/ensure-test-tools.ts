import {
  chromiumBin,
  dockerAnswers,
  ferretdbBin,
  haproxyBin,
  monoTools,
  natsServerBin,
} from "../tests/helpers/tools.ts";
import { buildFerretdb } from "./build-ferretdb.ts";

/**
 * Finds or installs what the integration tests run against: nats-server, Chromium, haproxy and Mono (Debian's
 * packages) and FerretDB 1.24.2 (built once from the Go module proxy into the tool cache). Where an
 * explicit URL or a Docker engine provides a component, nothing is installed for it. Throws when
 * something is missing and cannot be had: the tests would otherwise fail one by one with the same cause.
 * Mono alone only warns: the one suite that needs it is skipped, saying why.
 */
async function run(cmd: string[], cwd?: string, env?: Record<string, string>) {
  console.log(`$ ${cmd.join(" ")}`);
  const proc = Bun.spawn(cmd, { cwd, env: { ...process.env, ...env }, stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error(`failed: ${cmd.join(" ")}`);
}

let aptUpdated = false;
/** Installs a Debian package when we may (root with apt-get); false when we may not. */
async function aptInstall(pkg: string): Promise<boolean> {
  if (process.getuid?.() !== 0 || !Bun.which("apt-get")) return false;
  if (!aptUpdated) await run(["apt-get", "update", "-qq"]);
  aptUpdated = true;
  await run(["apt-get", "install", "-y", "-qq", pkg], undefined, { DEBIAN_FRONTEND: "noninteractive" });
  return true;
}

export async function ensureNats() {
  if (process.env.NATS_URL || natsServerBin()) return;
  if (await dockerAnswers()) return;
  if ((await aptInstall("nats-server")) && natsServerBin()) return;
  throw new Error("nats-server is missing: install it (apt-get install nats-server) or set NATS_URL");
}

// The API reference test renders /docs in a real browser; playwright-core brings no browser of its own.
async function ensureChromium() {
  if (chromiumBin()) return;
  if ((await aptInstall("chromium")) && chromiumBin()) return;
  throw new Error("Chromium is missing: install it (apt-get install chromium) or set CHROMIUM_BIN to its executable");
}

// The infra test checks the proxy config with haproxy itself and runs it in front of a real gateway.
async function ensureHaproxy() {
  if (haproxyBin()) return;
  if ((await aptInstall("haproxy")) && haproxyBin()) return;
  throw new Error("haproxy is missing: install it (apt-get install haproxy) or set HAPROXY_BIN to its executable");
}

// The C# client's suite (tests/unity) compiles with Mono's mcs and runs NUnit 2.6 headless with its console runner.
// Where the packages cannot be installed (not root, no apt-get) that suite is skipped and says so; nothing else needs Mono.
async function ensureMono() {
  if (monoTools()) return;
  let installed = true;
  for (const pkg of ["mono-complete", "libnewtonsoft-json-cil-dev", "libnunit-cil-dev", "nunit-console"])
    installed = installed && (await aptInstall(pkg));
  if (installed && monoTools()) return;
  console.warn(
    "Mono is missing (apt-get install mono-complete libnewtonsoft-json-cil-dev libnunit-cil-dev nunit-console): the C# client's suite is skipped",
  );
}

async function ensureFerretdb() {
  if (process.env.MONGODB_URL || (await Bun.file(ferretdbBin).exists())) return;
  if (!Bun.which("go") && (await dockerAnswers())) return;
  await buildFerretdb();
}

// `npm test` runs this file; the bench imports ensureNats alone (tests/bench/main.ts).
if (import.meta.main) {
  await ensureNats();
  await ensureChromium();
  await ensureHaproxy();
  await ensureMono();
  await ensureFerretdb();
}
