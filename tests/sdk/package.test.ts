import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { type Server, builtSdk, tenantWithPolicy } from "./helpers.ts";

const root = join(import.meta.dir, "..", "..");
let d: Server;
beforeAll(async () => {
  d = await startEmbedded();
  await builtSdk();
}, 300_000); // the declarations type-check the whole SDK: slow on a busy machine
afterAll(() => d.stop());

const run = (cmd: string[], cwd: string) => {
  const p = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
};

// The package as its users meet it (sdk/README.md): packed, unpacked into a scratch project, type-checked, run.
describe("sdk: the packed tarball", () => {
  test("npm pack holds the bundles and declarations only; a scratch project type-checks against it and runs against the server", async () => {
    const packs = tempDir("sdk-pack");
    const packed = run(["npm", "pack", "--pack-destination", packs, "--json"], join(root, "sdk"));
    expect(packed.code).toBe(0);
    const [info] = JSON.parse(packed.out) as [{ filename: string; files: { path: string }[] }];
    const files = info.files.map((f) => f.path);
    const expected = ["package.json", "README.md", "dist/index.js", "dist/index.d.ts", "dist/file.js", "dist/savepoint.browser.min.js"];
    expect(files).toEqual(expect.arrayContaining(expected));
    expect(files.filter((f) => f.startsWith("src/") || f.includes("generated/") && !f.endsWith(".d.ts"))).toEqual([]);

    // Unpacked where npm would install it; no registry is asked (the package has no dependencies).
    const scratch = tempDir("sdk-consumer");
    const target = join(scratch, "node_modules", "@savepoint");
    mkdirSync(target, { recursive: true });
    expect(run(["tar", "-xzf", join(packs, info.filename), "-C", target], scratch).code).toBe(0);
    run(["mv", join(target, "package"), join(target, "client")], scratch);
    mkdirSync(join(scratch, "node_modules", "@types"), { recursive: true });
    symlinkSync(join(root, "node_modules", "@types", "node"), join(scratch, "node_modules", "@types", "node"));
    symlinkSync(join(root, "node_modules", "undici-types"), join(scratch, "node_modules", "undici-types"));
    for (const f of ["main.ts", "tsconfig.json"]) cpSync(join(root, "sdk", "test-consumer", f), join(scratch, f));
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    expect(readdirSync(join(target, "client", "dist"))).toContain("index.d.ts");

    const tsc = run([join(root, "node_modules", ".bin", "tsc"), "-p", scratch], scratch);
    expect(tsc.out + tsc.err).toBe("");
    expect(tsc.code).toBe(0);

    const t = await tenantWithPolicy(d);
    // Spawned without blocking: the server answering it runs in this process.
    const game = Bun.spawn(["node", join(scratch, "out", "main.js"), d.base, t.key, join(scratch, "saves")], { cwd: scratch, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(game.stdout).text(), new Response(game.stderr).text()]);
    await game.exited;
    expect(err).toBe("");
    const report = JSON.parse(out.trim());
    expect(report).toMatchObject({ state: "idle", slot: { version: 1, data: { coins: 5 } }, error: { code: "not_found", status: 404 } });
    expect(report.accountId).toMatch(/^acc_/);
  }, 120_000);
});
