import type { SavepointApi } from "./api.ts";
import { SavepointError } from "./errors.ts";
import type { Status } from "./events.ts";
import type * as S from "./generated/schemas.ts";
import type {
  AccountEnvelopeResponse,
  AccountResponse,
  AuthProvider,
  CreateTransferCodeResponse,
  LinkedAuthProvider,
} from "./generated/schemas.ts";
import type { LocalStore } from "./local-store.ts";
import { keepsLocal, type ReattachInput, reattachDecision } from "./reattach-decision.ts";
import { type UnsyncedChange, unsyncedChanges } from "./unsynced.ts";

/** What the player is asked before a transfer replaces this device's account (never asked for its own account). */
export interface TransferPrompt {
  incoming: AccountResponse;
  /** This device's account id, if it has one (it will be replaced). */
  currentAccountId?: string;
  /** Always false: a code for the device's own account keeps everything and asks nothing. */
  sameAccount: false;
  /** This device's changes the server does not have: confirming drops them, declining keeps them. */
  unsynced: UnsyncedChange[];
}

/** The player's answer to a `TransferPrompt`: true replaces this device's data with the incoming account's. */
export type Confirm = (prompt: TransferPrompt) => boolean | Promise<boolean>;
type Session = { accountId: string; token: string };

/** The part of the client the helpers act through: narrow, so these helpers need no client class to work on. */
export interface AccountHost {
  readonly api: SavepointApi;
  readonly store: LocalStore;
  readonly options: { deviceLabel?: string };
  readonly accountId: string | undefined;
  adoptEnvelope(
    e: Pick<AccountEnvelopeResponse, "accountId" | "accountSessionToken"> & Partial<AccountEnvelopeResponse>,
  ): Promise<void>;
  resetLocal(): Promise<void>;
  pull(): Promise<void>;
  sync(options: { force?: boolean }): Promise<unknown>;
  status(): Status;
  /** Pushes now, whatever the interval and cooldown (a transfer is about to decide what would be lost). */
  flushNow(): Promise<void>;
}

/**
 * Moving devices, signing in, the player's devices and restore points (README, API).
 * Each acts on the client's session and keeps the local copy consistent with the server.
 */
export class AccountHelpers {
  constructor(private readonly client: AccountHost) {}

  /** On the old device: a one-time code to type on the new one. */
  createTransferCode(ttlSeconds?: number, deviceLabel?: string): Promise<CreateTransferCodeResponse> {
    return this.client.api.createTransferCode({
      ...(ttlSeconds ? { ttlSeconds } : {}),
      ...(deviceLabel ? { deviceLabel } : {}),
    });
  }

  /**
   * Consumes the code. For this device's own account (a signed-out or expired session coming back), the
   * new session is adopted and every local change kept and pushed, merged on a 409 as usual; nothing is
   * asked. For another account, what is pending is pushed first if it can be, then the player is shown the
   * incoming account and what would be lost (`unsynced`); only a yes replaces the local data. Declined,
   * nothing local changes and the new session is signed out again.
   */
  async attachTransferCode(transferCode: string, confirm: Confirm): Promise<boolean> {
    const envelope = await this.client.api.consumeTransferCode({ transferCode, ...this.label() });
    const session = { accountId: envelope.accountId, token: envelope.accountSessionToken };
    const decision = await this.mayReplace(
      { via: "transfer", incomingAccountId: envelope.accountId },
      async () => envelope.account,
      session,
      confirm,
    );
    if (decision === "declined") return false;
    if (decision === "keep") {
      await this.client.adoptEnvelope(envelope);
      await this.client.pull().catch(() => {});
      return true;
    }
    await this.replaceAccount(envelope);
    return true;
  }

  /**
   * Signs in with an identity provider's token. The device's own account, or a new one opened for a
   * device that had none, keeps every local save and pushes it. Another account replaces the local data
   * only when nothing would be lost, or `confirm` says yes to the same prompt as a transfer's; else this
   * refuses with `unsynced_saves` (details.pending) and nothing local changes.
   */
  async signIn(
    provider: AuthProvider,
    token: string,
    confirm?: Confirm,
  ): Promise<{ accountId: string; isNewAccount: boolean }> {
    const body = { provider, token, ...this.label() };
    // With the device's session, route 4 links the identity to this account; when it cannot (the identity is
    // another account's, or this account has another identity of the provider), the sign-in is to the
    // identity's own account: asked again without the session, as a device without one would.
    const a = await this.client.api.exchangeAuthSession(body).catch((e: unknown) => {
      if (!(e instanceof SavepointError && e.code === "account_auth_conflict" && this.client.accountId)) throw e;
      return this.client.api.exchangeAuthSession(body, { session: null });
    });
    const session = { accountId: a.accountId, token: a.accountSessionToken };
    const incoming = () => this.client.api.getAccount(a.accountId, { session });
    const decision = await this.mayReplace(
      { via: "signIn", incomingAccountId: a.accountId, isNewAccount: a.isNewAccount },
      incoming,
      session,
      confirm,
    );
    if (decision === "declined") {
      const pending = unsyncedChanges(this.client.store).map((c) => c.target);
      throw new SavepointError(
        "unsynced_saves",
        "signing in to another account would drop saves the server does not have",
        0,
        { pending },
      );
    }
    if (decision === "replace") await this.client.resetLocal();
    await this.client.adoptEnvelope(a);
    await this.client.pull().catch(() => {});
    return { accountId: a.accountId, isNewAccount: a.isNewAccount };
  }

  /**
   * What the incoming session does to this device's data (reattach-decision.ts). Before another account
   * may replace it, pushes what it can, then asks the player with what would still be lost when the
   * decision says to. No (or nothing to ask with): the incoming session is signed out again and nothing
   * local changes.
   */
  private async mayReplace(
    i: Omit<ReattachInput, "unsynced" | "currentAccountId">,
    incoming: () => Promise<AccountResponse>,
    session: Session,
    confirm: Confirm | undefined,
  ): Promise<"keep" | "replace" | "declined"> {
    const current = this.client.accountId ? { currentAccountId: this.client.accountId } : {};
    if (keepsLocal({ ...i, ...current })) return "keep";
    if (this.client.status().pending.length > 0) await this.client.flushNow().catch(() => {});
    const decision = reattachDecision({ ...i, ...current, unsynced: unsyncedChanges(this.client.store) });
    if (decision.action !== "ask") return decision.action;
    const prompt = { incoming: await incoming(), ...current, sameAccount: false as const, unsynced: decision.unsynced };
    const yes = confirm !== undefined && (await confirm(prompt));
    if (!yes) await this.client.api.signOutCurrent(session.accountId, { session }).catch(() => {});
    return yes ? "replace" : "declined";
  }

  /** Links a provider identity to this device's account (route 4 with the session). */
  async linkProvider(provider: AuthProvider, token: string): Promise<{ linked: boolean }> {
    if (!this.client.accountId) throw new SavepointError("unauthorized", "no account on this device to link to", 0);
    const a = await this.client.api.exchangeAuthSession({ provider, token });
    await this.client.adoptEnvelope(a);
    return { linked: a.wasProviderNewForAccount };
  }

  providers(): Promise<LinkedAuthProvider[]> {
    return this.client.api.listLinkedProviders();
  }

  /** The player's signed-in devices. */
  async devices(): Promise<S.DeviceSession[]> {
    return (await this.client.api.listSessions()).sessions;
  }
  signOutDevice(sessionId: string): Promise<S.SignOutResponse> {
    return this.client.api.revokeSession(sessionId);
  }
  /** Pushes what is pending, signs this device out on the server, and forgets the local account. */
  async signOut(options: { keepUnsynced?: boolean } = {}): Promise<void> {
    await this.client.sync({ force: true }).catch(() => {});
    if (!options.keepUnsynced && this.client.status().pending.length > 0) {
      const pending = this.client.status().pending;
      throw new SavepointError(
        "unsynced_saves",
        "saves are not on the server yet; sign out with keepUnsynced to drop them",
        0,
        { pending },
      );
    }
    await this.client.api.signOutCurrent();
    await this.client.resetLocal();
  }

  async history(
    slotId: string,
    page: { limit?: number; cursor?: string } = {},
  ): Promise<Pick<S.SlotRestorePointList, "restorePoints" | "next">> {
    const h = await this.client.api.slotHistory(slotId, page);
    return { restorePoints: h.restorePoints, ...(h.next ? { next: h.next } : {}) };
  }

  /** Restores a slot to a restore point (a new version on the server), then reads it back locally. */
  async restore(slotId: string, version: number): Promise<number> {
    await this.client.sync({ force: true }).catch(() => {});
    const r = this.client.store.get(slotId);
    const baseVersion = r?.base?.version ?? (await this.client.api.getSlot(slotId)).version;
    const answer = await this.client.api.restoreSlot(slotId, { version, baseVersion });
    if (answer.status === "conflict") {
      throw new SavepointError("conflict", `${slotId} changed on the server; pull and try again`, 409, {
        serverVersion: answer.slot.version,
      });
    }
    await this.client.pull();
    return answer.version;
  }

  private label() {
    return this.client.options.deviceLabel ? { deviceLabel: this.client.options.deviceLabel } : {};
  }

  private async replaceAccount(envelope: AccountEnvelopeResponse): Promise<void> {
    await this.client.resetLocal();
    await this.client.adoptEnvelope(envelope);
    await this.client.pull();
  }
}
