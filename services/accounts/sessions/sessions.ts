import { events } from "../../../shared/contract/internal.ts";
import { dropEverywhere } from "../../../shared/revocation/cache-drops.ts";
import { dayAfter } from "../../../shared/store/prune-days.ts";
import { sha256Hex } from "../../../shared/util/crypto.ts";
import { newId, newSessionToken } from "../../../shared/util/ids.ts";
import type { Deps } from "../deps.ts";
import type { SessionDoc } from "../repo.ts";
import { pruneSessionsOncePerDay } from "./prune-sessions.ts";

/** docs/operators.md: an account's live sessions; issuing one more revokes the least recently used. */
export const maxLiveSessions = 100;

/** Last use is written at most this often per session: a record of activity, not a write per request. */
export const lastUseResolutionMs = 60_000;

/**
 * How long a signed-out, revoked or expired session is kept after it ended, still answering
 * `session_revoked` or `session_expired`; then it is deleted and its token is unknown (docs/using-the-api.md#sessions-and-devices).
 */
export const sessionRetentionDays = 30;

/** The longest `sessionIdleDays` allows: the deadline assumed where the setting is not known. */
const longestIdleDays = 3650;

const dayMs = 86_400_000;

/** What to keep when a new session pushes the account past `maxLiveSessions`. */
export interface OpenOptions {
  /** The project's `sessionIdleDays`, fixing the new session's first deadline. */
  idleDays?: number;
  /** The session that asked for this one (directly, or by making the transfer code): never revoked for it. */
  keepSessionId?: string;
}

/**
 * A new device session for the account. The token goes to the device once; the store keeps its
 * SHA-256 and what an operator may see: the device label, creation and last use.
 */
export async function openSession(
  deps: Deps,
  account: { _id: string; envId: string },
  deviceLabel?: string,
  o: OpenOptions = {},
): Promise<string> {
  const { token, doc } = newSession(deps, account, deviceLabel, o.idleDays);
  await deps.repo.sessions.insert(doc);
  await revokeLeastRecentlyUsed(deps, account._id, [doc.sessionId, o.keepSessionId]);
  await pruneSessionsOncePerDay(deps.repo.sessions, deps.now());
  return token;
}

/**
 * Past `maxLiveSessions`, revokes the account's least recently used sessions (never one in `keep`: the
 * one just issued and the one that asked for it, whose last use is recorded only once a minute), and
 * has every gateway drop them before the new one is answered. Concurrent issuers sort the same way,
 * so they pick the same sessions.
 */
async function revokeLeastRecentlyUsed(deps: Deps, accountId: string, keep: (string | undefined)[]): Promise<void> {
  const { sessions } = deps.repo;
  const excess = (await sessions.count({ accountId, revokedAt: null })) - maxLiveSessions;
  if (excess <= 0) return;
  const oldest = await sessions.find(
    { accountId, revokedAt: null },
    { sort: { field: "lastUsedAt", direction: 1 }, limit: excess + keep.length },
  );
  const at = deps.now();
  const revoked = { revokedAt: at.toISOString(), pruneDay: revokedPruneDay(at) };
  for (const s of oldest.filter((x) => !keep.includes(x.sessionId)).slice(0, excess))
    await sessions.update({ _id: s._id, revokedAt: null }, revoked);
  await dropEverywhere(deps.bus, events.sessionsChanged, { accountId });
}

/** A session's token and the document that stores its hash, not yet written. */
export function newSession(
  deps: Deps,
  account: { _id: string; envId: string },
  deviceLabel?: string,
  idleDays?: number,
): { token: string; doc: SessionDoc } {
  const token = newSessionToken();
  const now = deps.now();
  const at = now.toISOString();
  const { _id: accountId, envId } = account;
  const doc = {
    _id: sha256Hex(token),
    sessionId: newId("ses"),
    accountId,
    envId,
    deviceLabel,
    createdAt: at,
    lastUsedAt: at,
    ...deadlineOf(now, idleDays),
  };
  return { token, doc };
}

/**
 * The deadline a recorded use fixes (`sessionIdleDays` on from it), and the day after which the
 * session may be deleted: `sessionRetentionDays` past that deadline.
 */
export function deadlineOf(usedAt: Date, idleDays: number | undefined): Pick<SessionDoc, "expiresAt" | "pruneDay"> {
  const deadline = new Date(usedAt.getTime() + (idleDays ?? longestIdleDays) * dayMs);
  return idleDays === undefined
    ? { pruneDay: dayAfter(deadline, sessionRetentionDays) }
    : fixedDeadline(deadline.getTime());
}

/** A deadline as stored, with the prune day it sets. */
export const fixedDeadline = (deadline: number) => ({
  expiresAt: new Date(deadline).toISOString(),
  pruneDay: dayAfter(new Date(deadline), sessionRetentionDays),
});

/** The day after which a session revoked at `at` may be deleted. */
export const revokedPruneDay = (at: Date) => dayAfter(at, sessionRetentionDays);

/**
 * When a session expires if it is not used again (docs/using-the-api.md#sessions-and-devices): the deadline fixed at
 * its last recorded use, or `sessionIdleDays` after that use when the setting has been lowered since.
 * A raised setting never moves a fixed deadline, so an expired session stays expired; it counts from
 * the next use. A session in use is resolved by each gateway at least every 30 s (its cache) and each
 * resolve records the use once the record is a minute old, so the record trails real use by under
 * 90 s: far inside the shortest window, one day.
 */
export function expiresAtOf(s: Pick<SessionDoc, "createdAt" | "lastUsedAt" | "expiresAt">, idleDays: number): number {
  const bySetting = Date.parse(s.lastUsedAt ?? s.createdAt) + idleDays * dayMs;
  return s.expiresAt ? Math.min(Date.parse(s.expiresAt), bySetting) : bySetting;
}

/** The idle days that set the deadline `expiresAtOf` gives: what a `session_expired` answer names. */
export const idleDaysOf = (s: Pick<SessionDoc, "createdAt" | "lastUsedAt">, deadline: number): number =>
  Math.round((deadline - Date.parse(s.lastUsedAt ?? s.createdAt)) / dayMs);

/** Neither signed out, revoked nor expired at `now`. */
export const isLive = (s: SessionDoc, idleDays: number, now: Date): boolean =>
  !s.revokedAt && now.getTime() <= expiresAtOf(s, idleDays);
