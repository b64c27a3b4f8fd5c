import { fail } from "../../shared/contract/errors.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import { FollowerFailedError, type Write } from "../../shared/store/port.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import type { Deps } from "./deps.ts";
import {
  adopt,
  chunkOf,
  type EnvTry,
  ensureEnvCount,
  envReserve,
  giveBackSpare,
  keptSpare,
} from "./environment-budget.ts";
import { snapshotWrites, syncStamp } from "./history/history.ts";
import type { AccountDoc, SnapshotDoc } from "./repo.ts";

/** An account as its counts name it: its own, and its environment's (environment-budget.ts). */
type Counted = { _id: string; envId: string };

/** Stored bytes of a serialized value: what the budget counts. */
export const byteLength = (json: string) => Buffer.byteLength(json, "utf8");
export const slotBytes = (s: { slotInfo: string; data: string }) => byteLength(s.slotInfo) + byteLength(s.data);

// `increment` creates a missing document: account tombstones are never removed, so this shape is
// never written; were it, it is an unusable deleted account.
const gone = {
  envId: "",
  status: "deleted",
  accountData: "{}",
  version: 0,
  createdAt: "",
  updatedAt: "",
  snapshotSeq: 0,
} as const;

/**
 * The followers that move an account's counts (all it stores; its current states) in the commit of the
 * write they count. With `reserve`, the account reserves that many bytes more from its environment:
 * the environment's count goes up too, only while it stays within `atMost` (environment-budget.ts).
 */
export const countBytes = (
  deps: Deps,
  account: Counted,
  stored: number,
  current = 0,
  reserve?: { bytes: number; atMost: number },
): Write[] => {
  const by = {
    storedBytes: stored,
    ...(current === 0 ? {} : { currentBytes: current }),
    ...(reserve ? { envReserved: reserve.bytes } : {}),
  };
  const own: Write = { increment: account._id, by, init: gone, in: deps.repo.accounts };
  return reserve ? [envReserve(deps, account.envId, reserve.bytes, reserve.atMost), own] : [own];
};

/**
 * Deletes one snapshot and gives its bytes back to its account. Only the delete that removed it
 * counts them, so concurrent evictions, trims, pruning and cleanup never count one twice. An account
 * not counted yet (written before counts) is left so: its first write counts what is left.
 */
export async function dropSnapshot(deps: Deps, s: SnapshotDoc): Promise<number> {
  const account = await deps.repo.accounts.get(s.accountId);
  return (await drop(deps, s, account?.storedBytes != null ? account : null)) === null ? 0 : byteLength(s.payload);
}

/** As dropSnapshot (`account` null when not counted); the account's count after it, or null when another delete was first. */
async function drop(deps: Deps, s: SnapshotDoc, account: Counted | null): Promise<number | null> {
  if ((await deps.repo.snapshots.delete({ _id: s._id })) === 0) return null;
  if (!account) return 0;
  // Its bytes stay reserved from the environment, unless the account now holds too many unused.
  const after = await deps.repo.accounts.increment(s.accountId, "storedBytes", -byteLength(s.payload), gone);
  if ((after.envReserved ?? 0) - (after.storedBytes ?? 0) > 2 * keptSpare) await giveBackSpare(deps, s.accountId);
  return after.storedBytes ?? 0;
}

/** Bytes of the account's current states: its accountData and every active and archived slot. */
export async function currentStateBytes(deps: Deps, account: AccountDoc): Promise<number> {
  const accountId = account._id;
  const slots = [
    ...(await deps.repo.slots.find({ accountId, status: "active" })),
    ...(await deps.repo.slots.find({ accountId, status: "archived" })),
  ];
  return slots.reduce((n, s) => n + slotBytes(s), byteLength(account.accountData));
}

/** Snapshots read at once: payloads can be 272 KiB each. */
const page = 20;

/** Bytes and count of every snapshot the account stores, read a page at a time. */
export async function historyBytes(deps: Deps, accountId: string): Promise<{ bytes: number; count: number }> {
  let bytes = 0;
  let count = 0;
  for (let skip = 0; ; skip += page) {
    const found = await deps.repo.snapshots.find(
      { accountId },
      { sort: { field: "_id", direction: 1 }, skip, limit: page },
    );
    for (const s of found) bytes += byteLength(s.payload);
    count += found.length;
    if (found.length < page) return { bytes, count };
  }
}

/** What an eviction frees beyond the write that needed it: a full account then writes on a while before the next one. */
const slackOf = (budget: number) => Math.floor(budget / 16);
/** The most restore points one eviction step deletes, in one commit on SQLite. */
const evictBatch = 16;

/**
 * Deletes the account's oldest restore points, across its slots and accountData, until what its
 * count (`stored`) plus `adding` passed `budget` by is freed, and a sixteenth of the budget more;
 * false when none is left before the write fits. What concurrent writes add meanwhile is left to
 * their own `settle`, so one eviction never chases them. Each step's deletes ride on one write to
 * the account (its `evictedAt`), each counted only if it removed its snapshot, so a concurrent
 * eviction elsewhere never counts one twice.
 */
async function evictUntilFits(
  deps: Deps,
  account: Counted,
  budget: number,
  adding: number,
  stored: number,
): Promise<boolean> {
  const accountId = account._id;
  const { snapshots } = deps.repo;
  let excess = stored + adding - (budget - slackOf(budget));
  while (excess > 0) {
    const oldest = await snapshots.find(
      { accountId },
      { sort: { field: "createdAt", direction: 1 }, limit: evictBatch },
    );
    if (oldest.length === 0) return ((await deps.repo.accounts.get(accountId))?.storedBytes ?? 0) + adding <= budget;
    const batch = oldest.filter((s) => {
      const take = excess > 0;
      excess -= byteLength(s.payload);
      return take;
    });
    const deletes = batch.map(
      (s): Write => ({
        delete: { _id: s._id },
        from: snapshots,
        ifDeleted: countBytes(deps, account, -byteLength(s.payload)),
      }),
    );
    await deps.repo.accounts
      .update({ _id: accountId }, { evictedAt: deps.now().toISOString() }, deletes)
      .catch((err) => {
        // MongoDB: the deletes after the one that failed wait for the next eviction.
        if (!(err instanceof FollowerFailedError)) throw err;
      });
  }
  return true;
}

/** Evictions under way in this process, by account: one at a time. */
const evicting = new Map<string, Promise<boolean>>();

/**
 * evictUntilFits, one at a time per account in this process. A write about to be made does not wait
 * for a running one (its `settle` will look again); a settling write waits, then looks again.
 */
async function evict(
  deps: Deps,
  account: Counted,
  budget: number,
  adding: number,
  stored: number,
  settling = false,
): Promise<boolean> {
  const accountId = account._id;
  const running = evicting.get(accountId);
  if (running && !settling) return true;
  if (running) {
    await running.catch(() => {});
    stored = (await deps.repo.accounts.get(accountId))?.storedBytes ?? 0;
    if (evicting.has(accountId)) return true; // another settling write went first
  }
  if (stored + adding <= budget) return true;
  const run = evictUntilFits(deps, account, budget, adding, stored).finally(() => evicting.delete(accountId));
  evicting.set(accountId, run);
  return run;
}

/**
 * An account written before stored bytes were counted gets its count from a recount, once: the
 * conditional write leaves a count another write started meanwhile in place.
 */
async function startCount(deps: Deps, account: AccountDoc): Promise<AccountDoc> {
  const current = await currentStateBytes(deps, account);
  const stored = current + (await historyBytes(deps, account._id)).bytes;
  // Only the write that starts the count reserves it from the environment (unbounded: it is stored already).
  const set = await deps.repo.accounts.update(
    { _id: account._id, storedBytes: null },
    { storedBytes: stored, currentBytes: current, envReserved: stored },
    [envReserve(deps, account.envId, stored)],
  );
  return (
    set ??
    (await deps.repo.accounts.get(account._id)) ?? {
      ...account,
      storedBytes: stored,
      currentBytes: current,
      envReserved: stored,
    }
  );
}

/** A write to an owner's current state (an account's data or a slot), as history and the budget see it. */
export interface OwnerWrite {
  kind: "sync" | "restore";
  owner: { _id: string; snapshotSeq: number; lastSnapshotAt?: string; lastSyncAt?: string; snapshotHash?: string };
  /** Stored bytes of the owner's current state before and after the write. */
  before: number;
  after: number;
  /** What the restore point of this write holds, and the version it records. */
  payload: unknown;
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
  const json = JSON.stringify(w.payload);
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
          .map((seq) => (seq >= 1 ? deps.repo.snapshots.get(`${w.owner._id}:${seq}`) : null)),
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
        const uncount = (s: Write): Write => ({ ...s, ifDeleted: countBytes(deps, account, -trimBytes[i]!) });
        return snapshotWrites(deps, plan, record).map((s) => ("delete" in s && trimBytes[i]! > 0 ? uncount(s) : s));
      })
    : [];
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
  const countWrites = added === 0 && stateDelta === 0 ? [] : countBytes(deps, account, added, stateDelta, reserve);
  const writes = [...snapshot, ...countWrites];
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
