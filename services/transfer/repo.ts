import type { Collection, Store } from "../../shared/store/port.ts";

export type TransferCodeStatus = "active" | "consumed" | "revoked" | "accountDeleted";

/** Keyed by the code's HMAC (code.ts): the code itself is never stored. */
export type TransferCodeDoc = {
  _id: string;
  envId: string;
  accountId: string;
  status: TransferCodeStatus;
  deviceLabel?: string | null;
  createdAt: string;
  expiresAt: string;
  consumedAt?: string;
};

/** One failed consume, counted in its fixed window by scope (a client IP or a runtime key). */
export type AttemptDoc = { _id: string; scope: string; window: number; at: string };

export interface Repo {
  codes: Collection<TransferCodeDoc>;
  attempts: Collection<AttemptDoc>;
}

export async function openRepo(store: Store): Promise<Repo> {
  return {
    codes: await store.collection<TransferCodeDoc>("transferCodes", [{ name: "account_status", fields: ["accountId", "status"] }]),
    attempts: await store.collection<AttemptDoc>("transferAttempts", [{ name: "scope_window", fields: ["scope", "window"] }]),
  };
}
