import { sha256Hex } from "../../shared/crypto.ts";
import { newId, newSessionToken } from "../../shared/ids.ts";
import type { Deps } from "./deps.ts";
import type { SessionDoc } from "./repo.ts";

/** Last use is written at most this often per session: a record of activity, not a write per request. */
export const lastUseResolutionMs = 60_000;

/**
 * A new device session for the account. The token goes to the device once; the store keeps its
 * SHA-256 and what an operator may see: the device label, creation and last use.
 */
export async function openSession(deps: Deps, account: { _id: string; envId: string }, deviceLabel?: string): Promise<string> {
  const { token, doc } = newSession(deps, account, deviceLabel);
  await deps.repo.sessions.insert(doc);
  return token;
}

/** A session's token and the document that stores its hash, not yet written. */
export function newSession(deps: Deps, account: { _id: string; envId: string }, deviceLabel?: string): { token: string; doc: SessionDoc } {
  const token = newSessionToken();
  const at = deps.now().toISOString();
  return { token, doc: { _id: sha256Hex(token), sessionId: newId("ses"), accountId: account._id, envId: account.envId, deviceLabel, createdAt: at, lastUsedAt: at } };
}
