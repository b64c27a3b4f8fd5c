import { afterAll, setDefaultTimeout } from "bun:test";
import { stopChildren } from "./infra.ts";
import { defaultTestTimeoutMs, timeoutGivenOnCommandLine } from "./test-timeout.ts";

// Preloaded by bunfig.toml: after the last test of the run, stop every server and service the suites
// started. `bun test` ends without running process "exit" handlers, so this is where cleanup happens.
afterAll(stopChildren);

// Bun's default of 5 s is shorter than a server's stop (SAVEPOINT_DRAIN_MS, 5 s): one suite run as
// `npx bun test <file>` (README, Tests) gets the minute `npm test` gives. A `--timeout` on the command
// line wins, since a default set here would override it.
if (!timeoutGivenOnCommandLine()) setDefaultTimeout(defaultTestTimeoutMs);
