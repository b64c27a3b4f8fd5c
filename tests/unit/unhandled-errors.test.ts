import { expect, test } from "bun:test";
import { unhandledErrors } from "../helpers/unhandled-errors.ts";

// bun test 1.4's output when a.test.ts leaves a rejection behind that fires while b.test.ts's beforeAll runs.
const log = [
  "bun test v1.4.5 (a7733435c)",
  "",
  "tests/api/a.test.ts:",
  "(pass) a suite > a1 [0.09ms]",
  "",
  "tests/api/b.test.ts:",
  "",
  "# Unhandled error between tests",
  "-------------------------------",
  "error: late rejection from a",
  "      at <anonymous> (/repo/tests/api/a.test.ts:2:67)",
  "-------------------------------",
  "",
  "(pass) b1 [0.05ms]",
  "",
  " 2 pass",
  " 0 fail",
  " 1 error",
].join("\n");

test("an error bun counted outside any test is repeated with the file running, the one before and the last test", () => {
  const [block, ...more] = unhandledErrors(log, 4);
  expect(more).toEqual([]);
  expect(block!.split("\n")).toEqual([
    "# Unhandled error between tests (while tests/api/b.test.ts ran; the file before it: tests/api/a.test.ts; the last test that finished: tests/api/a.test.ts > a suite > a1)",
    "-------------------------------",
    "error: late rejection from a",
    "      at <anonymous> (/repo/tests/api/a.test.ts:2:67)",
    "-------------------------------",
  ]);
});

test("a log without such an error gives none", () => {
  expect(unhandledErrors(log.replace("# Unhandled error between tests", ""))).toEqual([]);
});
