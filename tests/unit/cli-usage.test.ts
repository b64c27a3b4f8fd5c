import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

/** The CLI as a process with no server: help and command-line mistakes are answered before any request. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, join(root, "cli", "main.ts"), ...args], {
    env: {
      ...process.env,
      SAVEPOINT_URL: "http://127.0.0.1:9",
      SAVEPOINT_ADMIN_TOKEN: "cli-admin-token-0123456789",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

describe("the CLI's help and mistakes", () => {
  test("`key --help`, `key help` and `key -h` print that group's commands and exit 0; `key` alone prints them and exits 2", async () => {
    for (const args of [
      ["key", "--help"],
      ["key", "help"],
      ["key", "-h"],
    ]) {
      const help = await cli(args);
      expect([args.join(" "), help.code]).toEqual([args.join(" "), 0]);
      for (const name of ["key create", "key list", "key revoke"]) expect(help.stdout).toContain(name);
      expect(help.stdout).not.toContain("workspace create");
    }
    const bare = await cli(["key"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("key create");
    expect(bare.stderr).not.toContain("workspace create");
  });

  test("a mistyped command suggests the nearest one", async () => {
    for (const [typed, meant] of [
      ["acount get", "account get"],
      ["key craete", "key create"],
      ["workspaces list", "workspace list"],
      ["sync-policy st", "sync-policy set"],
    ]) {
      const r = await cli([...typed!.split(" "), "--json"]);
      expect([typed, r.code]).toEqual([typed, 2]);
      expect(r.stderr.split("\n")[0]).toBe(`unknown command "${typed}": did you mean "${meant}"?`);
    }
  });

  test("sync-policy set with no field is refused before anything is sent", async () => {
    const r = await cli(["sync-policy", "set", "--project", "prj_x"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "sync-policy set: nothing to change: give at least one of --minRemoteSyncIntervalSeconds, --forceSyncCooldownSeconds, --syncOnAppBackground, --syncOnAppForeground, --syncOnReconnect, --maxQueuedLocalSnapshots (see --help)",
    );
  });
});
