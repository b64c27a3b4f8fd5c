/**
 * `npm test`: installs or finds the test tools, runs the whole suite with `bun test`, and ends with
 * `N passed, N failed` counted from bun's own summaries. Exits non-zero on any failure, and when a
 * summary cannot be read (so a crash never passes for success).
 *
 * The suite's files run in two `bun test` processes at once (SAVEPOINT_TEST_SHARDS, default 2): about
 * half of a lone run's time is spent waiting (servers starting and draining, fsyncs, timers), so two
 * shards on two cores take little more than half as long. Each shard takes every other file in path
 * order and hands out ports from its own range (helpers/ports.ts). `npm test -- <files or options>`
 * runs one `bun test` with them, as before.
 */
import { Glob } from "bun";
import { dropRunDatabases } from "./helpers/test-databases.ts";
import { unhandledErrors } from "./helpers/unhandled-errors.ts";

const root = `${import.meta.dir}/..`;
// Every database the suites create is named after this run, so all of them go when it ends.
const run = `r${process.pid}`;

const given = process.argv.slice(2);
const shardCount = given.length > 0 ? 1 : Math.max(1, Number(process.env.SAVEPOINT_TEST_SHARDS ?? 2));

const spawn = (cmd: string[]) => Bun.spawn(cmd, { cwd: root, stdout: "inherit", stderr: "inherit" }).exited;
// sdk/dist is one folder: built here once when shards run, not by two of them at once (tests/sdk/helpers.ts).
const prepared = await Promise.all([
  spawn(["bun", "scripts/ensure-test-tools.ts"]),
  shardCount > 1 ? spawn(["bun", "sdk/scripts/build.ts"]) : 0,
]);
if (prepared.some((code) => code !== 0)) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const files = [...new Glob("tests/**/*.test.ts").scanSync({ cwd: root })].sort();
// The fault suite measures a deployment's recovery against its own steady rate: beside the other shard's
// multi-process deployments on the same two cores, that rate was not steady (2 writes/s in one CI run,
// 30 in the next). It runs after the shards, alone.
const alone = shardCount > 1 ? ["tests/distributed/faults.test.ts"] : [];
const sharded = files.filter((f) => !alone.includes(f));
const shards = Array.from({ length: shardCount }, (_, i) =>
  shardCount === 1 ? given : sharded.filter((_, n) => n % shardCount === i),
);

// Everything this prints goes through one queue of awaited writes: a shard's output, printed in one
// piece, must come before the summary line that ends the log.
let printing: Promise<unknown> = Promise.resolve();
const print = (text: string, to: typeof Bun.stdout = Bun.stdout) => {
  printing = printing.then(() => Bun.write(to, text));
  return printing;
};

/** One `bun test` over `args`; its output as it comes (the first shard's live, the others' when they end). */
async function runShard(args: string[], shard: number) {
  // Integration suites start real NATS, FerretDB and service processes: allow a minute per test.
  const proc = Bun.spawn(["bun", "test", "--timeout", "60000", ...args], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ...process.env,
      SAVEPOINT_TEST_RUN: run,
      SAVEPOINT_TEST_SHARD: `${shard}/${shardCount}`,
      ...(shardCount > 1 ? { SAVEPOINT_SDK_BUILT: "1" } : {}),
    },
  });
  let output = "";
  const live = shard === 0;
  async function pump(stream: ReadableStream<Uint8Array>, sink: typeof Bun.stdout) {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      output += text;
      if (live) print(text, sink);
    }
  }
  const pumps = Promise.all([pump(proc.stdout, Bun.stdout), pump(proc.stderr, Bun.stderr)]);
  const code = await proc.exited;
  // A stray grandchild may still hold the pipes open: the summary is written by now, so stop waiting.
  await Promise.race([pumps, Bun.sleep(2_000)]);
  if (!live) await print(`\n--- shard ${shard + 1} of ${shardCount} ---\n${output}`);
  return { code, output };
}

const results = await Promise.all(shards.map((args, i) => runShard(args, i)));
if (alone.length > 0) results.push(await runShard(alone, 0));
const left = dropRunDatabases(run);
if (left.length > 0) await print(`dropped ${left.length} test database(s) the suites left behind\n`);

const count = (output: string, word: string) =>
  Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(output)?.[1] ?? NaN);
let [passed, failed, skipped] = [0, 0, 0];
for (const { output } of results) {
  passed += count(output, "pass");
  // bun counts an error thrown outside any test (an unhandled rejection, a file that does not load)
  // apart from the failures; it fails the run all the same, so it is counted as a failure here.
  const errors = count(output, "errors?");
  failed += count(output, "fail") + (Number.isNaN(errors) ? 0 : errors);
  const skips = count(output, "skip");
  skipped += Number.isNaN(skips) ? 0 : skips;
}
// The log's tail is what CI keeps: repeat every such error there, with where the run was when it came.
for (const { output } of results) for (const block of unhandledErrors(output)) await print(`${block}\n`);
if (Number.isNaN(passed) || Number.isNaN(failed)) {
  await print(
    `a bun test shard exited without a readable summary (exit codes ${results.map((r) => r.code)})\n`,
    Bun.stderr,
  );
  await print("0 passed, 1 failed\n");
  process.exit(1);
}
await print(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`);
process.exit(failed > 0 || results.some((r) => r.code !== 0) ? 1 : 0);
