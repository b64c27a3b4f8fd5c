import type { UnsyncedChange } from "./unsynced.ts";

/**
 * What a device does when a session for some account arrives (a transfer code, a provider sign-in), as a
 * pure function (README, Moving devices). sdk-vectors/reattach.json holds the cases every client runs.
 */
export interface ReattachInput {
  via: "transfer" | "signIn";
  /** The account this device holds now, if any. */
  currentAccountId?: string;
  incomingAccountId: string;
  /** The sign-in opened a new account (provider sign-in only). */
  isNewAccount?: boolean;
  /** This device's changes the server does not have, after the push tried first. */
  unsynced: UnsyncedChange[];
}

/**
 * - `keep`: adopt the session, keep every local change and push it (merged on a 409 as usual).
 * - `replace`: nothing would be lost; the incoming account's data replaces the device's.
 * - `ask`: show the player the incoming account and `unsynced`; yes replaces. `declined` says what a no (or no
 *   way to ask) does: `cancel` (a transfer answers false) or `refuse` (a sign-in fails with `unsynced_saves`,
 *   details.pending the targets). Either way nothing local changes and the incoming session is signed out.
 */
export type ReattachDecision =
  | { action: "keep" }
  | { action: "replace" }
  | { action: "ask"; unsynced: UnsyncedChange[]; declined: "cancel" | "refuse" };

/** The device's own account, or a first account for a device that had none: nothing is at stake, nothing is pushed first. */
export function keepsLocal(i: Omit<ReattachInput, "unsynced">): boolean {
  if (i.incomingAccountId === i.currentAccountId) return true;
  return i.via === "signIn" && i.isNewAccount === true && i.currentAccountId === undefined;
}

export function reattachDecision(i: ReattachInput): ReattachDecision {
  if (keepsLocal(i)) return { action: "keep" };
  // A transfer always asks (the player typed a code for another account); a sign-in only when saves would be lost.
  if (i.via === "signIn" && i.unsynced.length === 0) return { action: "replace" };
  return { action: "ask", unsynced: i.unsynced, declined: i.via === "transfer" ? "cancel" : "refuse" };
}
