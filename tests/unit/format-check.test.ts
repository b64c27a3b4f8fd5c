import { expect, test } from "bun:test";
import { join } from "node:path";

// The formatter and linter (biome.json) hold the whole tree; `npm run format` fixes what this finds.
test("biome check: every file is formatted and passes the lint rules", () => {
  const root = join(import.meta.dir, "..", "..");
  const run = Bun.spawnSync([join(root, "node_modules", ".bin", "biome"), "check", "--colors=off", "."], { cwd: root });
  const output = `${run.stdout.toString()}${run.stderr.toString()}`;
  expect({ exitCode: run.exitCode, output: run.exitCode === 0 ? "" : output }).toEqual({ exitCode: 0, output: "" });
});
