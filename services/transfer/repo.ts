import { type HitDoc, hitIndexes } from "../../shared/limits/window-counter.ts";
import { type CollectionsOf, collection, openCollections } from "../../shared/store/collections.ts";
import type { Store } from "../../shared/store/port.ts";

export type TransferCodeStatus = "active" | "consumed" | "revoked" | "accountDeleted";

/** Keyed by the code's HMAC (code.ts): the code itself is never stored. */
export type TransferCodeDoc = {
  _id: string;
  envId: string;
  accountId: string;
  status: TransferCodeStatus;
  deviceLabel?: string | null;
  /** The session that made the code: the session cap never revokes it for the session the code opens. */
  sessionId?: string;
  createdAt: string;
  /** `~<the account's count>`: the order of creation (create-code.ts); `createdAt#<count>` on codes made before. */
  createdOrder?: string;
  expiresAt: string;
  consumedAt?: string | null;
  /** `YYYY-MM-DD`, the day after the one 24 h past expiry: a code is deleted once it has passed (prune-codes.ts). */
  pruneDay?: string;
};

/** How many codes an account has made: the order of its codes (create-code.ts). */
export type CodesMadeDoc = { _id: string; made: number };

const collections = {
  codes: collection<TransferCodeDoc>("transferCodes", [
    { name: "account_status", fields: ["accountId", "status"] },
    { name: "prune_day", fields: ["pruneDay"] },
  ]),
  /** Failed consumes by client IP and runtime key. */
  attempts: collection<HitDoc>("transferAttempts", hitIndexes),
  /** Codes made per account (`_id` is the account id). */
  made: collection<CodesMadeDoc>("transferCodesMade"),
};

export type Repo = CollectionsOf<typeof collections>;

export const openRepo = (store: Store): Promise<Repo> => openCollections(store, collections);
