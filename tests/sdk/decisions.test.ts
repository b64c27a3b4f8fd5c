import { describe, expect, test } from "bun:test";
import {
  decide,
  defaultSyncPolicy,
  manualClock,
  offsetFromDate,
  SavepointError,
  ServerClock,
  summarize,
  targetResult,
} from "../../sdk/src/index.ts";

// The SDK's decisions as pure functions of plain values (sdk/README.md, Sync results and Policy flags).
describe("sdk decisions", () => {
  const policy = { ...defaultSyncPolicy, minRemoteSyncIntervalSeconds: 60, forceSyncCooldownSeconds: 10 };
  const state = { pending: true, hasSession: true, stopped: false };
  const options = { onCooldown: "defer" as const, retryBaseMs: 1000, retryMaxMs: 60_000, random: () => 0.5 };

  test("decide sync: at once after the interval, else deferred until it ends", () => {
    expect(decide(policy, state, "sync", 100_000, options)).toEqual({ action: "push" });
    expect(decide(policy, { ...state, lastRemoteSyncAt: 90_000 }, "sync", 100_000, options)).toEqual({
      action: "defer",
      until: 150_000,
    });
    expect(decide(policy, { ...state, lastRemoteSyncAt: 40_000 }, "sync", 100_000, options)).toEqual({
      action: "push",
    });
  });

  test("decide force: push outside the cooldown; inside it, defer or refuse until its end", () => {
    const at = { ...state, lastForcedAt: 95_000 };
    expect(decide(policy, at, "force", 100_000, options)).toEqual({ action: "defer", until: 105_000 });
    expect(decide(policy, at, "force", 100_000, { ...options, onCooldown: "refuse" })).toEqual({
      action: "refuse",
      retryAt: 105_000,
    });
    expect(decide(policy, at, "force", 105_000, { ...options, onCooldown: "refuse" })).toEqual({ action: "push" });
    expect(decide(policy, state, "force", 100_000, options)).toEqual({ action: "push" });
  });

  test("decide foreground: the policy is read whatever its flags; the flag read decides the pull", () => {
    const off = { ...policy, syncOnAppForeground: false };
    expect(decide(off, state, "foreground", 100_000, options)).toEqual({ action: "refresh" });
    expect(decide(off, state, "policyRead", 100_000, options)).toEqual({ action: "nothing" });
    expect(decide(policy, state, "policyRead", 100_000, options)).toEqual({ action: "pull" });
  });

  test("targetResult: synced only when the change pending at the call is acknowledged", () => {
    const engine = { stopped: false, hasSession: true, offline: false };
    const net = new SavepointError("network_error", "no answer", 0);
    expect(targetResult({ target: "main", seqAtCall: 3, syncedSeq: 3, version: 7 }, engine)).toEqual({
      status: "synced",
      version: 7,
    });
    // A write of seq 3 begun and not answered is not acknowledged, whatever syncedSeq says.
    const begun = { target: "main", seqAtCall: 3, syncedSeq: 3, inflightSeq: 3, version: 7 };
    expect(targetResult(begun, { ...engine, retryAt: 9 })).toEqual({ status: "deferred", retryAt: 9 });
    const behind = { target: "main", seqAtCall: 3, syncedSeq: 2 };
    expect(targetResult(behind, { ...engine, offline: true, lastError: net })).toEqual({
      status: "offline",
      error: net,
    });
    expect(targetResult(behind, { ...engine, hasSession: false })).toMatchObject({
      status: "refused",
      error: { code: "unauthorized" },
    });
    const tooBig = new SavepointError("payload_too_large", "too large", 413);
    expect(targetResult({ target: "main", seqAtCall: 3, syncedSeq: 2, refused: tooBig }, engine)).toEqual({
      status: "refused",
      error: tooBig,
    });
    const conflict = new SavepointError("conflict", "merges ran out", 409);
    expect(targetResult({ target: "main", seqAtCall: 3, syncedSeq: 2, refused: conflict }, engine)).toEqual({
      status: "conflict",
      error: conflict,
    });
  });

  test("summarize: synced only when every target is; else the most serious; the earliest retryAt", () => {
    expect(summarize({})).toEqual({ status: "synced", targets: {} });
    const net = new SavepointError("network_error", "no answer", 0);
    const targets = {
      a: { status: "synced", version: 1 },
      b: { status: "deferred", retryAt: 50 },
      c: { status: "offline", error: net, retryAt: 20 },
    } as const;
    expect(summarize(targets)).toEqual({ status: "offline", retryAt: 20, targets });
    expect(summarize({ ...targets, d: { status: "refused", error: net } }).status).toBe("refused");
  });

  test("offsetFromDate: the middle of the Date's second against the middle of the round trip", () => {
    const date = "Thu, 26 Nov 2026 20:00:00 GMT";
    const server = Date.parse(date);
    const day = 86_400_000;
    expect(offsetFromDate(date, server + day - 100, server + day + 100)).toBe(500 - day);
    expect(offsetFromDate(null, 0, 1)).toBeUndefined();
    expect(offsetFromDate("not a date", 0, 1)).toBeUndefined();
  });
});

describe("sdk server clock: which answer's Date it trusts", () => {
  const date = "Thu, 26 Nov 2026 20:00:00 GMT";
  const server = Date.parse(date);
  test("a slow answer that agrees within its own uncertainty does not replace a fast one's offset", () => {
    const clock = new ServerClock(manualClock(0));
    clock.observe(date, server - 50, server + 50); // 100 ms round trip: offset 500 ± 550
    clock.observe(date, server - 3_000, server + 1_000); // 4 s round trip (a loaded machine): offset 1500 ± 2500
    expect(clock.offsetMs).toBe(500);
  });
  test("an answer that disagrees beyond both uncertainties is taken: the device clock was changed", () => {
    const clock = new ServerClock(manualClock(0));
    clock.observe(date, server - 50, server + 50);
    clock.observe(date, server - 3_600_000 - 1_000, server - 3_600_000 + 1_000); // the device went back an hour, slow answer
    expect(clock.offsetMs).toBe(3_600_500);
  });
  test("an offset restored from storage gives way to the first answer", () => {
    const clock = new ServerClock(manualClock(0));
    clock.restore(10_000);
    clock.observe(date, server - 3_000, server + 1_000);
    expect(clock.offsetMs).toBe(1_500);
  });
});
