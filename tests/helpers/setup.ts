import { afterAll, setDefaultTimeout } from "bun:test";
import { plugin } from "bun";
import { stopChildren } from "./infra.ts";
import { defaultTestTimeoutMs, timeoutGivenOnCommandLine } from "./test-timeout.ts";

// Preloaded by bunfig.toml: after the last test of the run, stop every server and service the suites
// started. `bun test` ends without running process "exit" handlers, so this is where cleanup happens.
afterAll(stopChildren);

// Bun's default of 5 s per test is shorter than one server's stop (SAVEPOINT_DRAIN_MS, 5 s), so a
// suite run alone (`npx bun test <file>`, docs/testing.md) gets the minute `npm test` gives. bunfig.toml
// has no timeout setting, and setDefaultTimeout holds for one file only: each test file is loaded
// with that call in front (on its first line, so line numbers stay). A `--timeout` given on the
// command line wins: a default set here would override it.
if (!timeoutGivenOnCommandLine()) {
  setDefaultTimeout(defaultTestTimeoutMs);
  plugin({
    name: "default test timeout",
    setup(build) {
      const prefix = `import { setDefaultTimeout as __setDefaultTimeout } from "bun:test"; __setDefaultTimeout(${defaultTestTimeoutMs}); `;
      build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
        loader: "ts",
        contents: prefix + (await Bun.file(path).text()),
      }));
    },
  });
}
