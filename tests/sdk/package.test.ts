import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { type Server, tenantWithPolicy } from "./helpers.ts";

const root = join(import.meta.dir, "..", "..");
let d: Server;
let packed: { code: number | null; out: string; err: string };
let tarball: string;
let files: string[];

const run = (cmd: string[], cwd: string) => {
  const p = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
};

beforeAll(async () => {
  d = await startEmbedded();
  // A clean clone: sdk/ as committed (no dist), beside the repository's installed node_modules.
  const clone = tempDir("sdk-clone");
  cpSync(join(root, "sdk"), join(clone, "sdk"), {
    recursive: true,
    filter: (src) => !/[/\\](dist|out|node_modules)$/.test(src),
  });
  symlinkSync(join(root, "node_modules"), join(clone, "node_modules"));
  const packs = tempDir("sdk-pack");
  // Spawned without blocking: the build it runs first (prepack) takes a while.
  const p = Bun.spawn(["npm", "pack", "--pack-destination", packs, "--json"], {
    cwd: join(clone, "sdk"),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  packed = { code: await p.exited, out, err };
  // The prepack build's own line comes before npm's JSON on stdout.
  const json = out.slice(out.search(/^\[/m));
  const [info] = (json ? JSON.parse(json) : [{ filename: "", files: [] }]) as [
    { filename: string; files: { path: string }[] },
  ];
  tarball = join(packs, info.filename);
  files = info.files.map((f) => f.path);
}, 300_000); // the declarations type-check the whole SDK: slow on a busy machine
afterAll(() => d.stop());

/** The tarball unpacked where npm would install it in a scratch project; no registry is asked (no dependencies). */
function scratchProject(withNodeTypes: boolean) {
  const scratch = tempDir("sdk-consumer");
  const target = join(scratch, "node_modules", "@savepoint");
  mkdirSync(target, { recursive: true });
  expect(run(["tar", "-xzf", tarball, "-C", target], scratch).code).toBe(0);
  run(["mv", join(target, "package"), join(target, "client")], scratch);
  if (withNodeTypes) {
    mkdirSync(join(scratch, "node_modules", "@types"), { recursive: true });
    symlinkSync(join(root, "node_modules", "@types", "node"), join(scratch, "node_modules", "@types", "node"));
    symlinkSync(join(root, "node_modules", "undici-types"), join(scratch, "node_modules", "undici-types"));
  }
  for (const f of readdirSync(join(root, "sdk", "test-consumer")))
    cpSync(join(root, "sdk", "test-consumer", f), join(scratch, f));
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  return scratch;
}
const tsc = (project: string, cwd: string) => run([join(root, "node_modules", ".bin", "tsc"), "-p", project], cwd);

// The package as its users meet it (sdk/README.md): packed from a clean clone, unpacked into a scratch project, type-checked, run.
describe("sdk: the packed tarball", () => {
  test("npm pack in a clean clone's sdk/ builds first: every bundle, declarations for every export, the <script> build; no sources", () => {
    expect(packed.err).not.toContain("ERR!");
    expect(packed.code).toBe(0);
    const expected = [
      "package.json",
      "README.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/file.js",
      "dist/file.d.ts",
    ];
    expected.push(
      "dist/savepoint.browser.min.js",
      "dist/browser.d.ts",
      "dist/savepoint.global.min.js",
      "dist/global.d.ts",
    );
    expect(files).toEqual(expect.arrayContaining(expected));
    expect(
      files.filter((f) => f.startsWith("src/") || f.startsWith("scripts/") || f.startsWith("test-consumer/")),
    ).toEqual([]);
    // Every export names its declarations, and every file an export names is in the tarball.
    const pkg = JSON.parse(readFileSync(join(root, "sdk", "package.json"), "utf8")) as {
      exports: Record<string, string | Record<string, string>>;
    };
    for (const [name, target] of Object.entries(pkg.exports)) {
      if (name === "./package.json") continue;
      expect([name, typeof target === "object" && typeof target.types === "string"]).toEqual([name, true]);
      for (const path of Object.values(target as Record<string, string>))
        expect([name, files]).toEqual([name, expect.arrayContaining([path.slice(2)])]);
    }
  });

  test("a Node project without the DOM library type-checks against it (typed saves included) and runs against the server", async () => {
    const scratch = scratchProject(true);
    const checked = tsc(scratch, scratch);
    expect(checked.out + checked.err).toBe("");
    expect(checked.code).toBe(0);

    const t = await tenantWithPolicy(d);
    // Spawned without blocking: the server answering it runs in this process.
    const game = Bun.spawn(["node", join(scratch, "out", "main.js"), d.base, t.key, join(scratch, "saves")], {
      cwd: scratch,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err] = await Promise.all([new Response(game.stdout).text(), new Response(game.stderr).text()]);
    await game.exited;
    expect(err).toBe("");
    const report = JSON.parse(out.trim());
    expect(report).toMatchObject({
      state: "idle",
      slot: { version: 1, data: { coins: 5 } },
      error: { code: "not_found", status: 404 },
    });
    expect(report.accountId).toMatch(/^acc_/);
    const main = { coins: 7, unlocks: ["forest"], settings: { music: true } };
    expect(report.typed).toEqual({
      seq: 1,
      label: { label: "World 1", level: 2 },
      main,
      extra: 8,
      volume: 3,
      gems: 3,
      ring: 1,
      anything: null,
    });
  }, 120_000);

  test("a project with neither the DOM library nor @types/node type-checks every entry: index, file, browser, global", () => {
    const scratch = scratchProject(false);
    const checked = tsc(join(scratch, "tsconfig.bare.json"), scratch);
    expect(checked.out + checked.err).toBe("");
    expect(checked.code).toBe(0);
  });
});
