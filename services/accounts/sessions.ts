import { sha256Hex } from "../../shared/crypto.ts";
import { newId, newSessionToken } from "../../shared/ids.ts";
import type { Deps } from "./deps.ts";

/** Last use is written at most this often per session: a record of activity, not a write per request. */
export const lastUseResolutionMs = 60_000;

/**
 * A new device session for the account. The token goes to the device once; the store keeps its
 * SHA-256 and what an operator may see: the device label, creation and last use.
 */
export async function openSession(deps: Deps, account: { _id: string; envId: string }, deviceLabel?: string): Promise<string> {
  const token = newSessionToken();
  const at = deps.now().toISOString();
  await deps.repo.sessions.insert({ _id: sha256Hex(token), sessionId: newId("ses"), accountId: account._id, envId: account.envId, deviceLabel, createdAt: at, lastUsedAt: at });
  return token;
}
