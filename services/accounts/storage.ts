import { fail } from "../../shared/contract/errors.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import { pointId } from "../../shared/store/history-ring.ts";
import type { Write } from "../../shared/store/port.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { byteLength, countBytes, startCount } from "./account-bytes.ts";
import type { Deps } from "./deps.ts";
import { adopt, chunkOf, type EnvTry, ensureEnvCount, giveBackSpare, keptSpare } from "./environment-budget.ts";
import { drop, evict } from "./evict-history.ts";
import { snapshotWrites, syncStamp } from "./history/history.ts";
import type { AccountDoc } from "./repo.ts";

/** A write to an owner's current state (an account's data or a slot), as history and the budget see it. */
export interface OwnerWrite {
  kind: "sync" | "restore";
  owner: { _id: string; snapshotSeq: number; lastSnapshotAt?: string; lastSyncAt?: string; snapshotHash?: string };
  /** Stored bytes of the owner's current state before and after the write. */
  before: number;
  after: number;
  /** What the restore point of this write holds, and the version it records. */
  payload: unknown;
  /** `payload` as JSON, when the caller has it already. */
  json?: string;
  version: number;
  /** A restore's second restore point, recorded just before its own: the content it replaces (restore.ts). */
  replaced?: { payload: unknown; version: number };
}

/**
 * The stamp and followers of a write under the plan's per-account storage budget
 * (docs/plans-and-limits.md#storage-budgets). Within the budget, this costs one read at most per restore point (the snapshot the plan's
 * count trims, for its size). Over it, when the current states alone (the account's `currentBytes`)
 * would not fit, the write is refused with `storage_quota_exceeded`; otherwise the account's oldest
 * restore points are deleted until the write fits, and when even that is not enough the write keeps
 * no restore point. The current state itself is never deleted. Call `settle` once the write is accepted.
 * A write that grows the account past its reservation from its environment reserves more in its commit
 * (environment-budget.ts); `envTry` says how, and its last try keeps no restore point.
 */
export async function writeWithinBudget(
  deps: Deps,
  plan: PlanName,
  account: AccountDoc,
  w: OwnerWrite,
  envTry: EnvTry = "chunk",
) {
  await ensureEnvCount(deps, account.envId);
  const noHistory = envTry === "noHistory";
  const json = w.json ?? JSON.stringify(w.payload);
  const hash = sha256Hex(json);
  const points = [
    ...(w.replaced ? [{ ...w.replaced, json: JSON.stringify(w.replaced.payload) }] : []),
    { payload: w.payload, version: w.version, json },
  ];
  const wanted = syncStamp(deps, plan, w.owner, w.kind, {
    hash,
    restorePoints: points.length,
    ...(noHistory ? { room: false } : {}),
  });
  const snapshotBytes = wanted.snapshot ? points.reduce((n, p) => n + byteLength(p.json), 0) : 0;
  const kept = deps.plans[plan].snapshot.keptPerSlot;
  // Point i of n takes seq `seq - (n - 1 - i)`, and the plan's count trims `kept` below each.
  const seqOf = (i: number, stamp: { seq: number }) => stamp.seq - (points.length - 1 - i);
  const trimmed = wanted.snapshot
    ? await Promise.all(
        points
          .map((_, i) => seqOf(i, wanted) - kept)
          .map((seq) => (seq >= 1 ? deps.repo.snapshots.get(pointId(w.owner._id, seq)) : null)),
      )
    : [];
  const budget = deps.plans[plan].storage.bytesPerAccount;
  const counted = await adopt(deps, account.storedBytes == null ? await startCount(deps, account) : account);
  const [used, current, reserved] = [counted.storedBytes ?? 0, counted.currentBytes ?? 0, counted.envReserved ?? 0];
  const stateDelta = w.after - w.before;

  let room = true;
  let trimBytes = trimmed.map((t) => (t ? byteLength(t.payload) : 0));
  const trimTotal = () => trimBytes.reduce((a, b) => a + b, 0);
  if (used + stateDelta + snapshotBytes - trimTotal() > budget) {
    const required = current + stateDelta;
    if (required > budget) {
      const details = {
        budgetBytes: budget,
        usedBytes: used,
        currentStateBytes: current,
        historyBytes: used - current,
        requiredBytes: required,
      };
      throw fail.storageQuotaExceeded({ scope: "account", ...details });
    }
    // The trims are done here, counted once; their followers then find nothing to delete.
    let stored = used;
    for (const t of trimmed) if (t) stored = (await drop(deps, t, account)) ?? stored;
    trimBytes = trimBytes.map(() => 0);
    room = await evict(deps, account, budget, stateDelta + snapshotBytes, stored);
  }

  const stamp = room
    ? wanted
    : syncStamp(deps, plan, w.owner, w.kind, { hash, restorePoints: points.length, room: false });
  const added = stateDelta + (stamp.snapshot ? snapshotBytes : 0);
  // Growth past the account's reservation reserves more first: a chunk ahead, so the next growths
  // touch no environment document (environment-budget.ts); exactly what is missing when that fails.
  const missing = added > 0 ? used + added - trimTotal() - reserved : 0;
  const envBudget = deps.plans[plan].storage.bytesPerEnvironmentAccounts;
  const reserve =
    missing > 0
      ? { bytes: envTry === "chunk" ? Math.max(chunkOf(deps, plan), missing) : missing, atMost: envBudget }
      : undefined;
  // A sync that changes no byte moves no count: no write for it (on FerretDB, a lease and three commands).
  const moved = (stored: number) =>
    stored === 0 && stateDelta === 0 ? [] : countBytes(deps, account, stored, stateDelta);
  const countWrites = added === 0 && stateDelta === 0 ? [] : countBytes(deps, account, added, stateDelta, reserve);
  // A sync's one trim, with no reservation to make, carries the whole count: the account is written once
  // (by the write's bytes less the trim's when its delete removed it), and not at all when they match.
  const fold = reserve === undefined && points.length === 1;
  let folded = false;
  const snapshot = stamp.snapshot
    ? points.flatMap((p, i) => {
        const seq = seqOf(i, stamp);
        const record = {
          ownerId: w.owner._id,
          accountId: account._id,
          seq,
          version: p.version,
          payload: p.payload,
          json: p.json,
          at: stamp.now,
        };
        // A trim's bytes count only if its delete removed the snapshot: an eviction may have been first.
        const trim = trimBytes[i]!;
        const counted = (s: Write): Write => {
          if (!fold) return { ...s, ifDeleted: countBytes(deps, account, -trim) };
          folded = true;
          return { ...s, ifDeleted: moved(added - trim), ifNoneDeleted: moved(added) };
        };
        return snapshotWrites(deps, plan, record).map((s) => ("delete" in s && trim > 0 ? counted(s) : s));
      })
    : [];
  const writes = folded ? snapshot : [...snapshot, ...countWrites];
  // Concurrent writes each judged against the count before the others: past half the budget, the
  // count is read again once written, and what they passed it by together is evicted. A shrink that
  // leaves too much reserved unused gives some back.
  const settle = async () => {
    if (used + added - trimTotal() < reserved - 2 * keptSpare) await giveBackSpare(deps, account._id);
    if (used + added - trimTotal() <= budget / 2) return;
    await evict(deps, account, budget, 0, (await deps.repo.accounts.get(account._id))?.storedBytes ?? 0, true);
  };
  return { stamp, writes, counts: countWrites, settle };
}
