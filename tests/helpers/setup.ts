import { afterAll } from "bun:test";
import { stopChildren } from "./infra.ts";

// Preloaded by bunfig.toml: after the last test of the run, stop every server and service the suites
// started. `bun test` ends without running process "exit" handlers, so this is where cleanup happens.
afterAll(stopChildren);
