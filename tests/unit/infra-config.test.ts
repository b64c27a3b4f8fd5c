import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readEnv } from "../../shared/process/env.ts";

// infra/ against what the code and the README say: the settings compose passes, the placeholders of
// .env.example, and what the comments promise about /readyz.

const root = join(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
type Service = { command?: string[]; environment?: Record<string, string> };
const compose = Bun.YAML.parse(read("infra/compose.yaml")) as { services: Record<string, Service> };

/** Variables of the Configuration table, docs/configuration.md (a row may name two, `MONGODB_URL`, `MONGODB_DB`). */
function configurationTable(): string[] {
  const rows = read("docs/configuration.md")
    .split("\n")
    .filter((l) => l.startsWith("| `"));
  return rows.flatMap((row) => [...row.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
}

/** Left out of compose on purpose, and why: a new setting must be passed through or named here. */
const notPassed: Record<string, string> = {
  HOST: "containers listen on every interface, the default",
  SAVEPOINT_DATA_DIR: "SQLite only: compose runs on MongoDB",
  SAVEPOINT_BACKUP_DIR:
    "SQLite only: the server refuses it with MONGODB_URL (docs/backups.md#the-distributed-deployment: mongodump)",
  SAVEPOINT_BACKUP_INTERVAL_MINUTES: "SQLite only, with SAVEPOINT_BACKUP_DIR",
  SAVEPOINT_BACKUP_KEEP: "SQLite only, with SAVEPOINT_BACKUP_DIR",
  SAVEPOINT_TLS_CERT: "compose's HAProxy ends TLS in front of the gateways (docs/tls.md)",
  SAVEPOINT_TLS_KEY: "compose's HAProxy ends TLS in front of the gateways (docs/tls.md)",
  SAVEPOINT_OPERATOR_TOKEN: "read by the CLI in an operator's own shell, never by a server",
};

describe("infra: compose against the Configuration table of docs/configuration.md", () => {
  test("every setting of the table reaches the app containers, or is listed as left out on purpose", () => {
    const vars = configurationTable();
    expect(vars.length).toBeGreaterThan(20);
    const apps = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === "bun");
    const passed = new Set(apps.flatMap(([, s]) => Object.keys(s.environment ?? {})));
    const missing = vars.filter((v) => !passed.has(v) && !(v in notPassed));
    expect(missing).toEqual([]);
    // And nothing is excused that compose passes anyway, or that the table no longer has.
    expect(Object.keys(notPassed).filter((v) => passed.has(v) || !vars.includes(v))).toEqual([]);
  });
});

describe("infra: .env.example", () => {
  const placeholders = [...read("infra/.env.example").matchAll(/^([A-Z_]+)=(change-me\S*)$/gm)].map(
    (m) => [m[1]!, m[2]!] as const,
  );

  test("each secret's placeholder is refused at start with one line naming the variable", () => {
    expect(placeholders.map(([name]) => name).sort()).toEqual([
      "SAVEPOINT_ADMIN_TOKEN",
      "SAVEPOINT_LINK_SECRET",
      "SAVEPOINT_TRANSFER_SECRET",
    ]);
    for (const [name, value] of placeholders) {
      expect(() => readEnv({ [name]: value }), name).toThrow(`${name}: still the placeholder of infra/.env.example`);
    }
  });
});

describe("infra: comments about /readyz", () => {
  test("none ties a gateway's 503 on /readyz to a service without saying a missing one is 200 with degraded: true", () => {
    for (const file of ["infra/compose.yaml", "infra/haproxy/haproxy.cfg"]) {
      // Each comment block (consecutive # lines) is one statement.
      const blocks = read(file)
        .split(/\n(?!\s*#)/)
        .map((b) => b.replace(/^[^#]*#?/gm, "").replace(/\s+/g, " "));
      const aboutServices = blocks.filter((b) => b.includes("/readyz") && b.includes("503") && /service|store/.test(b));
      for (const block of aboutServices) expect([file, block, block.includes("degraded")]).toEqual([file, block, true]);
    }
  });
});
