import type { OperationId, RouteTypes } from "./generated/routes.ts";
import type * as S from "./generated/schemas.ts";
import { type CallInput, Transport, type TransportOptions } from "./http.ts";

type Ok<K extends OperationId> = RouteTypes[K]["ok"];
type OkOrConflict<K extends OperationId> = RouteTypes[K]["ok"] | RouteTypes[K]["conflict"];
/** Per-call extras: an Idempotency-Key of your own, headers, keepalive. */
export type CallOptions = Pick<CallInput, "idempotencyKey" | "headers" | "keepalive" | "session">;
type Page = { limit?: number; cursor?: string };

/**
 * Every runtime route, typed from the server's contract (README, API). Account routes act on the
 * device's session unless an `accountId` is given; conflicts come back as values (`status: "conflict"`),
 * every other failure throws a `SavepointError`.
 */
export class SavepointApi {
  readonly transport: Transport;
  constructor(options: TransportOptions) {
    this.transport = new Transport(options);
  }

  private async run<K extends OperationId>(op: K, input: CallInput): Promise<OkOrConflict<K>> {
    return (await this.transport.call(op, input)).body;
  }
  private acc(accountId?: string): string {
    const id = accountId ?? this.transport.options.session?.()?.accountId;
    if (!id) throw new Error("no account: create one, sign in or consume a transfer code first");
    return id;
  }

  /** 1 */ health = (o: CallOptions = {}) => this.run("health", o) as Promise<Ok<"health">>;
  /** 2: `unchanged` config and a 304 both mean "keep your cached copy". */
  async runtimeConfig(gameConfigVersion?: number, etag?: string, o: CallOptions = {}) {
    const headers = { ...o.headers, ...(etag ? { "if-none-match": etag } : {}) };
    const a = await this.transport.call("getRuntimeConfig", { ...o, headers, query: { gameConfigVersion } });
    return {
      notModified: a.status === 304,
      config: a.body as Ok<"getRuntimeConfig"> | undefined,
      etag: a.headers.get("etag") ?? undefined,
    };
  }
  /** 3 */ createAccount = (body: S.CreateAccountRequest = {}, o: CallOptions = {}) =>
    this.run("createAccount", { ...o, body }) as Promise<Ok<"createAccount">>;
  /** 4: links to the current session's account when there is one. */
  exchangeAuthSession = (body: S.AuthSessionRequest, o: CallOptions = {}) =>
    this.run("exchangeAuthSession", { ...o, body }) as Promise<Ok<"exchangeAuthSession">>;
  /** 5 */ listLinkedProviders = (o: CallOptions = {}) =>
    this.run("listLinkedProviders", o) as Promise<Ok<"listLinkedProviders">>;
  /** 6 */ getAccount = (accountId?: string, o: CallOptions = {}) =>
    this.run("getAccount", { ...o, params: { accountId: this.acc(accountId) } }) as Promise<Ok<"getAccount">>;
  /** 7 */ deleteAccount = (accountId?: string, o: CallOptions = {}) =>
    this.run("deleteAccount", { ...o, params: { accountId: this.acc(accountId) } }) as Promise<Ok<"deleteAccount">>;
  /** 8 */ syncAccountData = (body: S.SyncAccountDataRequest, accountId?: string, o: CallOptions = {}) =>
    this.run("syncAccountData", { ...o, body, params: { accountId: this.acc(accountId) } });
  /** 9 */ createTransferCode = (body?: S.CreateTransferCodeRequest, accountId?: string, o: CallOptions = {}) =>
    this.run("createTransferCode", { ...o, body, params: { accountId: this.acc(accountId) } }) as Promise<
      Ok<"createTransferCode">
    >;
  /** 10: needs no session; the answer carries the new device's session. */
  consumeTransferCode = (body: S.ConsumeTransferCodeRequest, o: CallOptions = {}) =>
    this.run("consumeTransferCode", { ...o, body, session: null }) as Promise<Ok<"consumeTransferCode">>;
  /** 11 */ listSlots = (accountId?: string, o: CallOptions = {}) =>
    this.run("listSlots", { ...o, params: { accountId: this.acc(accountId) } }) as Promise<Ok<"listSlots">>;
  /** 12 */ createSlot = (body: S.CreateAccountSlotRequest, accountId?: string, o: CallOptions = {}) =>
    this.run("createSlot", { ...o, body, params: { accountId: this.acc(accountId) } }) as Promise<Ok<"createSlot">>;
  /** 13 */ getSlot = (slotId: string, accountId?: string, o: CallOptions = {}) =>
    this.run("getSlot", { ...o, params: { accountId: this.acc(accountId), slotId } }) as Promise<Ok<"getSlot">>;
  /** 14 */ deleteSlot = (slotId: string, accountId?: string, o: CallOptions = {}) =>
    this.run("deleteSlot", { ...o, params: { accountId: this.acc(accountId), slotId } }) as Promise<Ok<"deleteSlot">>;
  /** 15 */ syncSlot = (slotId: string, body: S.SyncAccountSlotRequest, accountId?: string, o: CallOptions = {}) =>
    this.run("syncSlot", { ...o, body, params: { accountId: this.acc(accountId), slotId } });
  /** 16 */ archiveSlot = (slotId: string, accountId?: string, o: CallOptions = {}) =>
    this.run("archiveSlot", { ...o, params: { accountId: this.acc(accountId), slotId } }) as Promise<Ok<"archiveSlot">>;
  /** 17: for servers and tools relaying signed Stripe events; a game never calls it. */
  stripeWebhook = (payload: string, signature: string, o: CallOptions = {}) =>
    this.transport
      .callRoute(
        { method: "POST", path: "/webhooks/stripe", auth: "none", ok: 200, idempotent: false },
        {
          ...o,
          headers: { ...o.headers, "stripe-signature": signature, "content-type": "application/json" },
          body: JSON.parse(payload),
        },
      )
      .then((a) => a.body as Ok<"stripeWebhook">);
  /** 18 */ syncSave = (saveId: string, body: S.SaveSyncRequest, o: CallOptions = {}) =>
    this.run("syncSave", { ...o, body, params: { saveId } });
  /** The save-based model's load. */
  getSave = (saveId: string, o: CallOptions = {}) =>
    this.run("getSave", { ...o, params: { saveId } }) as Promise<Ok<"getSave">>;

  /** Erases a save and its restore points (save-based model); a second delete answers `alreadyDeleted`. */
  deleteSave = (saveId: string, o: CallOptions = {}) =>
    this.run("deleteSave", { ...o, params: { saveId } }) as Promise<Ok<"deleteSave">>;

  // Player self-service (README, Player self-service): restore points, devices, sign-out.
  slotHistory = (slotId: string, page: Page = {}, accountId?: string, o: CallOptions = {}) =>
    this.run("listSlotRestorePoints", {
      ...o,
      params: { accountId: this.acc(accountId), slotId },
      query: page,
    }) as Promise<Ok<"listSlotRestorePoints">>;
  slotHistoryVersion = (slotId: string, version: number, accountId?: string, o: CallOptions = {}) =>
    this.run("getSlotRestorePoint", { ...o, params: { accountId: this.acc(accountId), slotId, version } }) as Promise<
      Ok<"getSlotRestorePoint">
    >;
  /** A new version with that restore point's content; a stale `baseVersion` answers the conflict body. */
  restoreSlot = (slotId: string, body: S.PlayerRestoreRequest, accountId?: string, o: CallOptions = {}) =>
    this.run("restoreSlot", { ...o, body, params: { accountId: this.acc(accountId), slotId } });
  accountDataHistory = (page: Page = {}, accountId?: string, o: CallOptions = {}) =>
    this.run("listAccountDataRestorePoints", {
      ...o,
      params: { accountId: this.acc(accountId) },
      query: page,
    }) as Promise<Ok<"listAccountDataRestorePoints">>;
  accountDataHistoryVersion = (version: number, accountId?: string, o: CallOptions = {}) =>
    this.run("getAccountDataRestorePoint", { ...o, params: { accountId: this.acc(accountId), version } }) as Promise<
      Ok<"getAccountDataRestorePoint">
    >;
  restoreAccountData = (body: S.PlayerRestoreRequest, accountId?: string, o: CallOptions = {}) =>
    this.run("restoreAccountData", { ...o, body, params: { accountId: this.acc(accountId) } });
  /** The account's signed-in devices; `current` marks this one. */
  listSessions = (accountId?: string, o: CallOptions = {}) =>
    this.run("listSessions", { ...o, params: { accountId: this.acc(accountId) } }) as Promise<Ok<"listSessions">>;
  /** This device signs out: its session is revoked on the server. */
  signOutCurrent = (accountId?: string, o: CallOptions = {}) =>
    this.run("signOutCurrentSession", { ...o, params: { accountId: this.acc(accountId) } }) as Promise<
      Ok<"signOutCurrentSession">
    >;
  revokeSession = (sessionId: string, accountId?: string, o: CallOptions = {}) =>
    this.run("signOutSession", { ...o, params: { accountId: this.acc(accountId), sessionId } }) as Promise<
      Ok<"signOutSession">
    >;
}
