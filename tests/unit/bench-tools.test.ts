import { expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, trackChild } from "../helpers/infra.ts";

const root = join(import.meta.dir, "..", "..");

/**
 * `npm run bench` on a fresh clone builds the FerretDB it needs, as `dev:distributed` does, instead of
 * failing with "FerretDB is not built". Run with BENCH_TOOLS_ONLY=1, the bench stops right after its
 * tool check; a `go` of the test's own stands in for the few minutes of the real build.
 */
test("the bench's start-up builds FerretDB when it is missing, then (BENCH_TOOLS_ONLY=1) stops before measuring", async () => {
  const dir = tempDir("bench-tools");
  const ferretdb = join(dir, "cache", "bin", "ferretdb-1.24.2");
  const calls = join(dir, "go-calls");
  // Records how it was called, and "builds" the -o target as `go build -o <target> .` would.
  const go = join(dir, "go");
  writeFileSync(
    go,
    `#!/bin/sh\necho "$PWD $*" >> '${calls}'\nwhile [ "$#" -gt 0 ]; do [ "$1" = "-o" ] && touch "$2"; shift; done\n`,
  );
  chmodSync(go, 0o755);
  const proc = Bun.spawn([process.execPath, join(root, "tests", "bench", "main.ts")], {
    // A bench that ignored the switch would start measuring: the briefest settings, and it is stopped below.
    env: {
      ...process.env,
      PATH: `${dir}:${process.env.PATH}`,
      FERRETDB_BIN: ferretdb,
      BENCH_TOOLS_ONLY: "1",
      BENCH_SMOKE: "1",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  trackChild(proc);
  let stdout = "";
  let stderr = "";
  const pumps = Promise.all([
    (async () => {
      for await (const chunk of proc.stdout) {
        stdout += new TextDecoder().decode(chunk);
        // Its first line of measuring: a run past the tool check is stopped at once.
        if (/^bench: \d+ clients/m.test(stdout)) proc.kill("SIGKILL");
      }
    })(),
    (async () => {
      for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
    })(),
  ]);
  const code = await proc.exited;
  await pumps;
  const output = `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  expect(stdout, output).not.toMatch(/^bench: \d+ clients/m);
  expect(code, output).toBe(0);
  expect(existsSync(calls), output).toBe(true);
  expect(readFileSync(calls, "utf8").trim()).toBe(`${join(root, "infra", "ferretdb")} build -o ${ferretdb} .`);
  expect(existsSync(ferretdb)).toBe(true);
});
