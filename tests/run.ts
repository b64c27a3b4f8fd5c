/**
 * `npm test`: installs or finds the test tools, runs the whole suite with `bun test`, and ends with
 * `N passed, N failed` counted from bun's own summary. Exits non-zero on any failure, and when the
 * summary cannot be read (so a crash never passes for success).
 */
import { dropRunDatabases } from "./helpers/test-databases.ts";
import { unhandledErrors } from "./helpers/unhandled-errors.ts";

const root = `${import.meta.dir}/..`;
// Every database the suites create is named after this run, so all of them go when it ends.
const run = `r${process.pid}`;

const tools = Bun.spawn(["bun", "scripts/ensure-test-tools.ts"], { cwd: root, stdout: "inherit", stderr: "inherit" });
if ((await tools.exited) !== 0) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}

// Integration suites start real NATS, FerretDB and service processes: allow a minute per test.
const proc = Bun.spawn(["bun", "test", "--timeout", "60000", ...process.argv.slice(2)], {
  cwd: root,
  stdout: "pipe",
  stderr: "pipe",
  env: { ...process.env, SAVEPOINT_TEST_RUN: run },
});
let output = "";
async function pump(stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    output += text;
    sink.write(text);
  }
}
const pumps = Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
const code = await proc.exited;
// A stray grandchild may still hold the pipes open: the summary is written by now, so stop waiting.
await Promise.race([pumps, Bun.sleep(2_000)]);
const left = dropRunDatabases(run);
if (left.length > 0) console.log(`dropped ${left.length} test database(s) the suites left behind`);

const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(output)?.[1] ?? NaN);
const passed = count("pass");
// bun counts an error thrown outside any test (an unhandled rejection, a file that does not load)
// apart from the failures; it fails the run all the same, so it is counted as a failure here.
const errors = count("errors?");
const failed = count("fail") + (Number.isNaN(errors) ? 0 : errors);
const skipped = count("skip");
// The log's tail is what CI keeps: repeat every such error there, with where the run was when it came.
for (const block of unhandledErrors(output)) console.log(block);
if (Number.isNaN(passed) || Number.isNaN(failed)) {
  console.log(`0 passed, 1 failed`);
  console.error(`bun test exited ${code} without a readable summary`);
  process.exit(1);
}
console.log(`${passed} passed, ${failed} failed${Number.isNaN(skipped) ? "" : `, ${skipped} skipped`}`);
process.exit(failed > 0 || code !== 0 ? 1 : 0);
