import { describe, expect, test } from "bun:test";
import { SavepointError, forceDecision, offsetFromDate, pushDueAt, summarize, targetResult } from "../../sdk/src/index.ts";

// The SDK's decisions as pure functions of plain values (sdk/README.md, Sync results and Policy flags).
describe("sdk decisions", () => {
  test("pushDueAt: at once after the interval, else when it ends", () => {
    expect(pushDueAt({ now: 100_000, lastPushAt: -Infinity, minRemoteSyncIntervalSeconds: 60 })).toBe(100_000);
    expect(pushDueAt({ now: 100_000, lastPushAt: 90_000, minRemoteSyncIntervalSeconds: 60 })).toBe(150_000);
    expect(pushDueAt({ now: 100_000, lastPushAt: 40_000, minRemoteSyncIntervalSeconds: 60 })).toBe(100_000);
  });

  test("forceDecision: push outside the cooldown; inside it, defer or refuse until its end", () => {
    const at = { now: 100_000, lastForcedAt: 95_000, forceSyncCooldownSeconds: 10 };
    expect(forceDecision({ ...at, onCooldown: "defer" })).toEqual({ action: "defer", retryAt: 105_000 });
    expect(forceDecision({ ...at, onCooldown: "refuse" })).toEqual({ action: "refuse", retryAt: 105_000 });
    expect(forceDecision({ ...at, now: 105_000, onCooldown: "refuse" })).toEqual({ action: "push" });
    expect(forceDecision({ ...at, lastForcedAt: -Infinity, onCooldown: "defer" })).toEqual({ action: "push" });
  });

  test("targetResult: synced only when the change pending at the call is acknowledged", () => {
    const engine = { stopped: false, hasSession: true, offline: false };
    const net = new SavepointError("network_error", "no answer", 0);
    expect(targetResult({ target: "main", seqAtCall: 3, syncedSeq: 3, version: 7 }, engine)).toEqual({ status: "synced", version: 7 });
    // A write of seq 3 begun and not answered is not acknowledged, whatever syncedSeq says.
    const begun = { target: "main", seqAtCall: 3, syncedSeq: 3, inflightSeq: 3, version: 7 };
    expect(targetResult(begun, { ...engine, retryAt: 9 })).toEqual({ status: "deferred", retryAt: 9 });
    const behind = { target: "main", seqAtCall: 3, syncedSeq: 2 };
    expect(targetResult(behind, { ...engine, offline: true, lastError: net })).toEqual({ status: "offline", error: net });
    expect(targetResult(behind, { ...engine, hasSession: false })).toMatchObject({ status: "refused", error: { code: "unauthorized" } });
    const tooBig = new SavepointError("payload_too_large", "too large", 413);
    expect(targetResult({ target: "main", seqAtCall: 3, syncedSeq: 2, refused: tooBig }, engine)).toEqual({ status: "refused", error: tooBig });
    const conflict = new SavepointError("conflict", "merges ran out", 409);
    expect(targetResult({ target: "main", seqAtCall: 3, syncedSeq: 2, refused: conflict }, engine)).toEqual({ status: "conflict", error: conflict });
  });

  test("summarize: synced only when every target is; else the most serious; the earliest retryAt", () => {
    expect(summarize({})).toEqual({ status: "synced", targets: {} });
    const net = new SavepointError("network_error", "no answer", 0);
    const targets = { a: { status: "synced", version: 1 }, b: { status: "deferred", retryAt: 50 }, c: { status: "offline", error: net, retryAt: 20 } } as const;
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
