import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { backupOrder } from "../../services/backup-order.ts";
import { isServiceName, loadService, registry, serviceNames } from "../../services/registry.ts";
import { internal } from "../../shared/contract/internal.ts";
import { operationsRoutes } from "../../shared/contract/operations.ts";
import { overviewEndpoints } from "../../shared/contract/overview.ts";
import type { Route } from "../../shared/contract/route.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import { startEmbedded } from "../helpers/deployments.ts";

// services/registry.ts is the one list of bus services. What cannot import it (infra/, the folders
// under services/) is checked against it here, so a service added in one place and missed in another
// fails this file rather than a deployment.

const root = join(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const sorted = (names: Iterable<string>) => [...names].sort();

type ComposeService = { command?: string[] };
const compose = Bun.YAML.parse(read("infra/compose.yaml")) as { services: Record<string, ComposeService> };

describe("the service registry", () => {
  test("lists each service once, in the order the embedded process starts them (config first: the bootstrap needs it)", () => {
    expect(new Set(serviceNames).size).toBe(serviceNames.length);
    expect(serviceNames[0]).toBe("config");
    expect(serviceNames).toEqual(Object.keys(registry) as typeof serviceNames);
  });

  test("every entry loads a module of its own name from services/<name>/service.ts", async () => {
    for (const name of serviceNames) {
      expect(existsSync(join(root, "services", name, "service.ts")), name).toBe(true);
      const service = await loadService(name);
      expect(service.name).toBe(name);
      expect(typeof service.start).toBe("function");
    }
  });

  // Each service lists its endpoints as data (shared/process/service-endpoints.ts): read here without starting anything.
  const servedBy = async () => {
    const served: { service: string; subject: string; route?: Route }[] = [];
    for (const name of serviceNames)
      for (const e of (await loadService(name)).endpoints)
        served.push({ service: name, subject: e.subject, route: e.route });
    return served;
  };

  test("every route of the route tables is served by exactly one endpoint of a registered service; the gateway's own by none", async () => {
    const served = await servedBy();
    const table: readonly Route[] = [...allRoutes, ...Object.values(operationsRoutes)];
    const count = (r: Route) => served.filter((e) => e.route === r).length;
    expect(Object.fromEntries(table.map((r) => [`${r.method} ${r.path}`, count(r)]))).toEqual(
      Object.fromEntries(table.map((r) => [`${r.method} ${r.path}`, r.gatewayOnly ? 0 : 1])),
    );
    // An endpoint for a route the tables lack would answer a subject no gateway sends.
    const strays = served.filter((e) => e.route && !table.includes(e.route));
    expect(strays.map((e) => `${e.service}: ${e.route?.operationId}`)).toEqual([]);
  });

  test("every internal endpoint is served by exactly one registered service, and no subject twice", async () => {
    const subjects = (await servedBy()).map((e) => e.subject);
    const internalSubjects = [...Object.values(internal), ...Object.values(overviewEndpoints)].map((e) => e.subject);
    expect(internalSubjects.filter((s) => subjects.filter((t) => t === s).length !== 1)).toEqual([]);
    expect(subjects.filter((s, i) => subjects.indexOf(s) !== i)).toEqual([]);
  });

  test("every folder under services/ but the gateway is a registered bus service", () => {
    const folders = readdirSync(join(root, "services"), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== "gateway")
      .map((d) => d.name);
    expect(sorted(folders)).toEqual(sorted(serviceNames));
  });

  test("no service keeps an entry point or start-up file of its own: the standalone entry and the registry start it", () => {
    for (const name of serviceNames) {
      for (const file of ["main.ts", "start.ts"])
        expect(existsSync(join(root, "services", name, file)), `services/${name}/${file}`).toBe(false);
    }
  });

  test("infra/compose.yaml runs every registered service, under its name, through the standalone entry, and no other", () => {
    const standalone = Object.entries(compose.services).filter(
      ([, s]) => s.command?.[0] === "bun" && s.command[1] === "services/standalone.ts",
    );
    for (const [key, s] of standalone) expect(s.command, key).toEqual(["bun", "services/standalone.ts", key]);
    expect(sorted(standalone.map(([key]) => key))).toEqual(sorted(serviceNames));
    // Every other container running our code is the gateway.
    const others = Object.entries(compose.services).filter(
      ([, s]) => s.command?.[0] === "bun" && s.command[1] !== "services/standalone.ts",
    );
    expect(others.map(([key, s]) => [key, s.command])).toEqual([["gateway", ["bun", "services/gateway/main.ts"]]]);
  });

  test("the docs run every registered service by hand, the README lists its folder in the tree, docs/backups.md says the backup order", () => {
    const readme = read("README.md");
    const byHand =
      /^run\(\) \{[^\n]*services\/standalone\.ts[\s\S]*?\n```/m.exec(read("docs/distributed.md"))?.[0] ?? "";
    expect(sorted(new Set([...byHand.matchAll(/\brun ([a-z-]+)/g)].map((m) => m[1]!)))).toEqual(sorted(serviceNames));
    const tree = /^services\/ [\s\S]*?^cli\//m.exec(readme)?.[0] ?? "";
    const folders = [...tree.matchAll(/^ {2}([a-z-]+)\/ /gm)].map((m) => m[1]!);
    expect(sorted(folders)).toEqual(sorted([...serviceNames, "gateway"]));
    const order = /`services\/backup-order\.ts`\): ([a-z, -]+) \(/.exec(read("docs/backups.md"))?.[1];
    expect(order?.split(", ")).toEqual([...backupOrder]);
  });

  test("Prometheus scrapes every registered service", () => {
    const names = /job_name: services[\s\S]*?names: \[([^\]]*)\]/.exec(read("infra/prometheus/prometheus.yml"))?.[1];
    expect(sorted((names ?? "").split(",").map((n) => n.trim()))).toEqual(sorted(serviceNames));
  });

  test("no file copies the list: a line naming every service (or, outside tests, three of them) is a second registry", () => {
    const skip = new Set(["node_modules", ".git", "sdk", "data", "docs"]);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const d of readdirSync(dir, { withFileTypes: true })) {
        if (skip.has(d.name)) continue;
        const path = join(dir, d.name);
        if (d.isDirectory()) walk(path);
        else if (/\.ts$/.test(d.name)) files.push(path);
      }
    };
    walk(root);
    const copies: string[] = [];
    for (const file of files) {
      const path = relative(root, file);
      if (path === "services/registry.ts") continue;
      const limit = path.startsWith("tests/") && !path.startsWith("tests/helpers/") ? serviceNames.length : 3;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const named = serviceNames.filter((name) => line.includes(`"${name}"`));
          if (named.length >= limit) copies.push(`${path}:${i + 1}`);
        });
    }
    expect(copies).toEqual([]);
  });

  test("the standalone entry refuses a name the registry lacks, listing those it has", async () => {
    expect(isServiceName("gateway")).toBe(false);
    const env = { ...process.env, NATS_URL: "" };
    const proc = Bun.spawn([process.execPath, join(root, "services", "standalone.ts"), "gateway"], {
      stdout: "pipe",
      stderr: "pipe",
      env,
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(2);
    expect(stderr).toContain(serviceNames.join(", "));
  });

  test("the embedded deployment starts every registered service: the gateway's /readyz asks exactly those, and each answers", async () => {
    const d = await startEmbedded();
    try {
      const ready = (await (await d.request("/readyz")).json()) as {
        degraded: boolean;
        services: Record<string, string>;
      };
      expect(ready.services).toEqual(Object.fromEntries(serviceNames.map((name) => [name, "ok"])));
      expect(ready.degraded).toBe(false);
    } finally {
      await d.stop();
    }
  });
});
