import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { RequestMeta } from "../bus/port.ts";
import { fail } from "../contract/errors.ts";
import type { ClientInfo, SessionActor, Tenant } from "../contract/tenant.ts";
import { failpoint } from "../observe/failpoint.ts";
import type { Logger } from "../observe/log.ts";
import { metrics } from "../observe/metrics.ts";
import type { Collection, Store } from "../store/port.ts";
import { dayAfter, deleteDaysBefore } from "../store/prune-days.ts";
import { inRounds, insertOrLose, lostRound, updateOrLose } from "../store/versioned.ts";
import { addressBlock } from "../util/address-block.ts";
import { replayed, replyOf, type SentReply } from "./reply.ts";

export const idempotencyKeyHeader = "idempotency-key";
/** How long the gateway waits for this request: a key's claim lasts that long (see `claim`). */
export const timeoutHeader = "x-timeout-ms";

const keepHours = 24;
const defaultTimeoutMs = 5_000;
/**
 * Keyed records one account, or one client address (an IPv6 /64) on a route without a session, may add per
 * UTC day (docs/api-rules.md#idempotent-retries; SAVEPOINT_IDEMPOTENCY_DAILY_CAP).
 */
export const defaultDailyCap = 10_000;

/**
 * A key's record. `_id` and the reply's cipher key are two different hashes of (scope, key): the
 * record alone tells nothing of the key, and a reply that carries a secret (a session token, a
 * transfer code) is readable only by a retry that presents the key again.
 */
export type IdempotencyDoc = {
  _id: string;
  fingerprint: string;
  /** `erased`: its account was deleted; a retry with the key is 410 (services/accounts/cleanup.ts). */
  state: "pending" | "done" | "erased";
  /** Epoch ms until which the first request may still be running; past it a retry takes over. */
  claimedUntil: number;
  /** The sealed compact answer (see ReplayForm); none once erased. */
  reply?: string | null;
  /** The account the answer belongs to (the session's, or the one the answer names), so its deletion erases it. */
  accountId?: string | null;
  /**
   * For an answer that hands out a session token: a hash of (scope, key, the client's address block), so
   * only the client that made the first request gets it again (see `ReplayForm.bound`).
   */
  client?: string | null;
  createdAt: string;
  /** The UTC day after the record stops counting: pruned by day (shared/store/prune-days.ts). */
  expiresDay: string;
};

type Message = { tenant?: Tenant; session?: SessionActor; client?: ClientInfo; params: unknown; body: unknown };

/** Keyed records a scope added on one UTC day, counted with the store's `increment`. */
type CountDoc = { _id: string; n: number; expiresDay: string };

/**
 * How a route's answer is kept for a replay (docs/api-rules.md#idempotent-retries): `compact` keeps only what cannot be
 * asked again (ids, a session token) and names the account it belongs to; `expand` rebuilds the answer
 * around it by reading the current state, and refuses (410) when that account is gone. A route
 * without a form keeps its answer as it is: only small answers may do so.
 */
export interface ReplayForm<M> {
  /**
   * The answer hands out a session token: its replay goes only to the client address (the gateway's,
   * an IPv6 /64 as one) that made the first request; another gets 409 `other_client`. A key that two
   * clients both send (a constant, a hash of the body) must not hand one the other's session.
   */
  bound?: true;
  compact(answer: unknown): { kept: unknown; accountId?: string };
  expand(kept: unknown, msg: M): Promise<unknown>;
}

/** A form for an answer that is only a view of current state: nothing is kept, a replay reads it again. */
export const rereadForm = <M>(read: (msg: M) => Promise<unknown>): ReplayForm<M> => ({
  compact: () => ({ kept: null }),
  expand: (_, msg) => read(msg),
});

/**
 * What a write learns of its request's Idempotency-Key: not the key, the id of the key's record (none
 * without a key), to stamp on what it changes (write-stamp.ts). A write that finds its own stamp (it
 * ran before, and its process died before the answer was recorded) returns its earlier answer as
 * `replayed` (reply.ts; services/accounts/write-mark.ts).
 */
export type IdempotencyRecordId = string | undefined;

const digest = (text: string) => createHash("sha256").update(text).digest();

function seal(secret: Buffer, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", secret, iv);
  const text = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), text]).toString("base64");
}

function open(secret: Buffer, sealed: string): unknown {
  const bytes = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", secret, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8"));
}

const reused = () =>
  fail.idempotencyKeyReused(
    "This Idempotency-Key was already used with a different request; use a new key for a new request.",
  );
const otherClient = () =>
  fail.idempotencyKeyReused("This Idempotency-Key was first used by another client; use a new key for a new request.", {
    reason: "other_client",
  });
const inProgress = (retryAfter: number) =>
  fail.idempotencyKeyReused("A request with this Idempotency-Key is still in progress; retry once it has finished.", {
    reason: "in_progress",
    retryAfter,
  });

/**
 * Idempotent retries (docs/api-rules.md#idempotent-retries): within 24 hours, a request with the same key, credentials and
 * route gets the first answer again, the same key with another request is 409. A first request
 * claims the key before it runs; a retry while the claim lasts is 409 `in_progress`. A claim outlives
 * its holder only until the gateway's timeout: after a crash, the retry runs again, and the writes
 * that matter (syncs) recognise their own earlier write by the key stamped on the document.
 */
export async function openIdempotency(store: Store, log: Logger, now: () => Date, options: { dailyCap?: number } = {}) {
  const dailyCap = options.dailyCap ?? defaultDailyCap;
  const records: Collection<IdempotencyDoc> = await store.collection<IdempotencyDoc>("idempotencyKeys", [
    { name: "expires_day", fields: ["expiresDay", "_id"] },
    { name: "account", fields: ["accountId"] },
  ]);
  const counts = await store.collection<CountDoc>("idempotencyCounts", [
    { name: "expires_day", fields: ["expiresDay", "_id"] },
  ]);
  const prune = async () => {
    const today = now().toISOString().slice(0, 10);
    await deleteDaysBefore(records, "expiresDay", today);
    await deleteDaysBefore(counts, "expiresDay", today);
  };
  const pruning = setInterval(
    () => void prune().catch((err) => log.warn("idempotency pruning failed", { err })),
    3_600_000,
  );
  pruning.unref();

  async function claim(
    id: string,
    fingerprint: string,
    client: string,
    secret: Buffer,
    timeoutMs: number,
  ): Promise<{ replay: unknown } | undefined> {
    // A round is lost when the record vanished (pruned) or another retry took the claim over between
    // the read and the write; 3 such are answered as still in progress.
    return inRounds({ rounds: 3, exhausted: () => inProgress(1) }, async () => {
      const at = now();
      const claimedUntil = at.getTime() + timeoutMs;
      const fresh: IdempotencyDoc = {
        _id: id,
        fingerprint,
        state: "pending",
        claimedUntil,
        createdAt: at.toISOString(),
        expiresDay: dayAfter(at, 2),
      };
      if ((await insertOrLose(records, fresh)) !== lostRound) return undefined;
      const held = await records.get(id);
      if (!held) return lostRound;
      const expired = at.getTime() - Date.parse(held.createdAt) >= keepHours * 3_600_000;
      if (!expired && held.fingerprint !== fingerprint) throw reused();
      if (!expired && held.client && held.client !== client) throw otherClient();
      if (!expired && held.state === "erased") throw fail.accountDeleted();
      if (!expired && held.state === "done") return { replay: open(secret, held.reply!) };
      if (!expired && held.claimedUntil > at.getTime())
        throw inProgress(Math.ceil((held.claimedUntil - at.getTime()) / 1000));
      // The holder died or gave up (or the key outlived its 24 hours): take the claim over, once.
      const { _id, ...claimed } = fresh;
      // An expired record's binding goes with it: the new first request binds its own answer.
      const taken = await updateOrLose(
        records,
        { _id: id, createdAt: held.createdAt, claimedUntil: held.claimedUntil },
        { ...claimed, client: null },
      );
      return taken === lostRound ? lostRound : undefined;
    });
  }

  /**
   * Counts a new record against its payer's day: the account, or on a route without a session the client
   * address (one client spends its own allowance, never the other players'). Past the cap it is not kept;
   * the first refusal per payer and day is logged and counted for the operator, naming no address.
   */
  async function withinCap(msg: Message & { tenant: Tenant }, operationId: string): Promise<boolean> {
    const at = now();
    const day = at.toISOString().slice(0, 10);
    const [scope, payer] = msg.session
      ? (["account", `account:${msg.session.accountId}`] as const)
      : (["client", `client:${clientBlock(msg)}`] as const);
    const counted = digest(`idempotency-count|${msg.tenant.envId}|${payer}|${day}`).toString("hex");
    const { n } = await counts.increment(counted, "n", 1, { expiresDay: dayAfter(at, 1) });
    if (n === dailyCap + 1) {
      metrics.idempotencyCapReached.inc({ route: operationId, scope });
      const who = { envId: msg.tenant.envId, scope, ...(msg.session ? { accountId: msg.session.accountId } : {}) };
      log.warn("idempotency cap reached: keyed requests run unrecorded until the next UTC day", {
        ...who,
        operationId,
        dailyCap,
      });
    }
    return n <= dailyCap;
  }

  return {
    /**
     * Wraps a route handler of the runtime API; requests without the header run as before. A conflict
     * answer is not recorded: a retry asks again and gets the state as it is then.
     */
    wrap<M extends Message>(
      operationId: string,
      handler: (msg: M, key: IdempotencyRecordId) => Promise<unknown>,
      form?: ReplayForm<M>,
    ) {
      return async (msg: M, meta: RequestMeta): Promise<SentReply> => {
        const key = meta.headers[idempotencyKeyHeader];
        if (!key || !msg.tenant) return replyOf(await handler(msg, undefined));
        const owner = `${msg.tenant.envId}|${msg.session ? `account:${msg.session.accountId}` : `key:${msg.tenant.keyId}`}`;
        const scope = `${owner}|${key}`;
        const id = digest(`idempotency-id|${scope}`).toString("hex");
        const secret = digest(`idempotency-reply|${scope}`);
        const fingerprint = digest(JSON.stringify([operationId, msg.params, msg.body])).toString("hex");
        const client = digest(`idempotency-client|${scope}|${clientBlock(msg)}`).toString("hex");
        const timeoutMs = Number(meta.headers[timeoutHeader]) || defaultTimeoutMs;

        const earlier = await claim(id, fingerprint, client, secret, timeoutMs);
        if (earlier) return replayed(form ? await form.expand(earlier.replay, msg) : earlier.replay);
        const release = () => records.delete({ _id: id, state: "pending" }).catch(() => 0);
        let reply: SentReply;
        try {
          reply = replyOf(await handler(msg, id));
        } catch (err) {
          // Nothing was written: release the key so a retry runs again.
          await release();
          throw err;
        }
        failpoint("idempotency.before-record");
        // A write that recognised itself (see IdempotencyRecordId) answers as a replay, and its answer is recorded.
        // A conflict changed nothing, and what it shows can be asked again. A count the store fails
        // must not fail a write that stands: the record is then tried, as before the cap.
        if (
          reply.kind === "conflict" ||
          !(await withinCap(msg as M & { tenant: Tenant }, operationId).catch(() => true))
        ) {
          await release();
          return reply;
        }
        const { kept, accountId } = form ? form.compact(reply.value) : { kept: reply.value, accountId: undefined };
        const owned = { accountId: msg.session?.accountId ?? accountId ?? null, ...(form?.bound ? { client } : {}) };
        const done = { state: "done" as const, reply: seal(secret, kept), ...owned };
        await records.update({ _id: id }, done).catch((err) => {
          // The write stands; a retry runs again and a sync recognises it by its stamp.
          log.warn("idempotency record not written", { operationId, err });
        });
        return reply;
      };
    },

    /**
     * A deleted account's records lose their answers and their link to it: what is left (two hashes
     * and a day) makes a retry with the key 410 until it expires. Idempotent.
     */
    forget: (accountId: string) => records.updateMany({ accountId }, { state: "erased", reply: null, accountId: null }),
  };
}
/** The client's address block as the gateway saw it (SAVEPOINT_TRUSTED_PROXIES applied): an IPv6 /64 is one client. */
const clientBlock = (msg: Message) => addressBlock(msg.client?.ip ?? "unknown");

export type Idempotency = Awaited<ReturnType<typeof openIdempotency>>;
