import type { Write } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { envReserve } from "./environment-budget.ts";
import type { AccountDoc } from "./repo.ts";

/** An account as its counts name it: its own, and its environment's (environment-budget.ts). */
export type Counted = { _id: string; envId: string };

/** Stored bytes of a serialized value: what the budget counts. */
export const byteLength = (json: string) => Buffer.byteLength(json, "utf8");
export const slotBytes = (s: { slotInfo: string; data: string }) => byteLength(s.slotInfo) + byteLength(s.data);
/** The same counts of a synced document's stored fields, of a whole document or of a write's changes. */
export const accountDataBytes = (fields: { accountData?: string }) => byteLength(fields.accountData ?? "");
export const slotFieldBytes = (fields: { slotInfo?: string; data?: string }) =>
  byteLength(fields.slotInfo ?? "") + byteLength(fields.data ?? "");

// `increment` creates a missing document: account tombstones are never removed, so this shape is
// never written; were it, it is an unusable deleted account.
export const gone = {
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

/**
 * An account written before stored bytes were counted gets its count from a recount, once: the
 * conditional write leaves a count another write started meanwhile in place.
 */
export async function startCount(deps: Deps, account: AccountDoc): Promise<AccountDoc> {
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
