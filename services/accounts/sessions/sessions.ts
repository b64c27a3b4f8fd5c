import { dropEverywhere } from "../../../shared/bus/cache-drops.ts";
import { events } from "../../../shared/contract/internal.ts";
import { sha256Hex } from "../../../shared/util/crypto.ts";
import { newId, newSessionToken } from "../../../shared/util/ids.ts";
import type { Deps } from "../deps.ts";
import type { SessionDoc } from "../repo.ts";

/** README, Operators: an account's live sessions; issuing one more revokes the least recently used. */
export const maxLiveSessions = 100;

/** Last use is written at most this often per session: a record of activity, not a write per request. */
export const lastUseResolutionMs = 60_000;

/**
 * A new device session for the account. The token goes to the device once; the store keeps its
 * SHA-256 and what an operator may see: the device label, creation and last use.
 */
export async function openSession(deps: Deps, account: { _id: string; envId: string }, deviceLabel?: string): Promise<string> {
  const { token, doc } = newSession(deps, account, deviceLabel);
  await deps.repo.sessions.insert(doc);
  await revokeLeastRecentlyUsed(deps, account._id, doc._id);
  return token;
}

/**
 * Past `maxLiveSessions`, revokes the account's least recently used sessions (never `keep`, the one
 * just issued), and has every gateway drop them before the new one is answered. Concurrent issuers
 * sort the same way, so they pick the same sessions.
 */
async function revokeLeastRecentlyUsed(deps: Deps, accountId: string, keep: string): Promise<void> {
  const { sessions } = deps.repo;
  const excess = (await sessions.count({ accountId, revokedAt: null })) - maxLiveSessions;
  if (excess <= 0) return;
  const oldest = await sessions.find({ accountId, revokedAt: null }, { sort: { field: "lastUsedAt", direction: 1 }, limit: excess + 1 });
  const revokedAt = deps.now().toISOString();
  for (const s of oldest.filter((x) => x._id !== keep).slice(0, excess)) await sessions.update({ _id: s._id, revokedAt: null }, { revokedAt });
  await dropEverywhere(deps.bus, events.sessionsChanged, { accountId });
}

/** A session's token and the document that stores its hash, not yet written. */
export function newSession(deps: Deps, account: { _id: string; envId: string }, deviceLabel?: string): { token: string; doc: SessionDoc } {
  const token = newSessionToken();
  const at = deps.now().toISOString();
  const doc = { _id: sha256Hex(token), sessionId: newId("ses"), accountId: account._id, envId: account.envId, deviceLabel, createdAt: at, lastUsedAt: at };
  return { token, doc };
}

const dayMs = 86_400_000;

/**
 * When a session expires if it is not used again (README, Sessions and devices): `sessionIdleDays` after
 * its last recorded use. A session in use is resolved by each gateway at least every 30 s (its cache)
 * and each resolve records the use once the record is a minute old, so the record trails real use by
 * under 90 s: far inside the shortest window, one day.
 */
export const expiresAtOf = (s: Pick<SessionDoc, "createdAt" | "lastUsedAt">, idleDays: number): number =>
  Date.parse(s.lastUsedAt ?? s.createdAt) + idleDays * dayMs;

/** Neither signed out, revoked nor expired at `now`. */
export const isLive = (s: SessionDoc, idleDays: number, now: Date): boolean => !s.revokedAt && now.getTime() <= expiresAtOf(s, idleDays);
