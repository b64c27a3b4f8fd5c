import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { Replayed } from "./bus/reply.ts";
import type { RequestMeta } from "./bus/port.ts";
import { fail } from "./contract/errors.ts";
import type { SessionActor, Tenant } from "./contract/tenant.ts";
import { failpoint } from "./failpoint.ts";
import type { Logger } from "./log.ts";
import { dayAfter, deleteDaysBefore } from "./prune-days.ts";
import { type Collection, DuplicateKeyError, type Store } from "./store/port.ts";

export const idempotencyKeyHeader = "idempotency-key";
/** How long the gateway waits for this request: a key's claim lasts that long (see `claim`). */
export const timeoutHeader = "x-timeout-ms";

const keepHours = 24;
const defaultTimeoutMs = 5_000;

/**
 * A key's record. `_id` and the reply's cipher key are two different hashes of (scope, key): the
 * record alone tells nothing of the key, and a reply that carries a secret (a session token, a
 * transfer code) is readable only by a retry that presents the key again.
 */
export type IdempotencyDoc = {
  _id: string;
  fingerprint: string;
  state: "pending" | "done";
  /** Epoch ms until which the first request may still be running; past it a retry takes over. */
  claimedUntil: number;
  reply?: string;
  createdAt: string;
  /** The UTC day after the record stops counting: pruned by day (shared/prune-days.ts). */
  expiresDay: string;
};

type Message = { tenant?: Tenant; session?: SessionActor; params: unknown; body: unknown };

/**
 * What a write learns of its request's key: the record id, to stamp on what it changes. A write that
 * finds its own stamp (it ran before, and its process died before the answer was recorded) returns
 * its earlier answer as `Replayed` (services/accounts/write-mark.ts).
 */
export type WriteKey = string | undefined;

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
  fail.idempotencyKeyReused("This Idempotency-Key was already used with a different request; use a new key for a new request.");
const inProgress = (retryAfter: number) =>
  fail.idempotencyKeyReused("A request with this Idempotency-Key is still in progress; retry once it has finished.", { reason: "in_progress", retryAfter });

/**
 * Idempotent retries (decisions.md): within 24 hours, a request with the same key, credentials and
 * route gets the first answer again, the same key with another request is 409. A first request
 * claims the key before it runs; a retry while the claim lasts is 409 `in_progress`. A claim outlives
 * its holder only until the gateway's timeout: after a crash, the retry runs again, and the writes
 * that matter (syncs) recognise their own earlier write by the key stamped on the document.
 */
export async function openIdempotency(store: Store, log: Logger, now: () => Date) {
  const records: Collection<IdempotencyDoc> = await store.collection<IdempotencyDoc>("idempotencyKeys", [
    { name: "expires_day", fields: ["expiresDay", "_id"] },
  ]);
  const prune = () => deleteDaysBefore(records, "expiresDay", now().toISOString().slice(0, 10));
  const pruning = setInterval(() => void prune().catch((err) => log.warn("idempotency pruning failed", { err })), 3_600_000);
  pruning.unref();

  async function claim(id: string, fingerprint: string, secret: Buffer, timeoutMs: number): Promise<{ replay: unknown } | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const at = now();
      const fresh: IdempotencyDoc = { _id: id, fingerprint, state: "pending", claimedUntil: at.getTime() + timeoutMs, createdAt: at.toISOString(), expiresDay: dayAfter(at, 2) };
      try {
        await records.insert(fresh);
        return undefined;
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
      }
      const held = await records.get(id);
      if (!held) continue;
      const expired = at.getTime() - Date.parse(held.createdAt) >= keepHours * 3_600_000;
      if (!expired && held.fingerprint !== fingerprint) throw reused();
      if (!expired && held.state === "done") return { replay: open(secret, held.reply!) };
      if (!expired && held.claimedUntil > at.getTime()) throw inProgress(Math.ceil((held.claimedUntil - at.getTime()) / 1000));
      // The holder died or gave up (or the key outlived its 24 hours): take the claim over, once.
      const { _id, ...claimed } = fresh;
      if (await records.update({ _id: id, createdAt: held.createdAt, claimedUntil: held.claimedUntil }, claimed)) return undefined;
    }
    throw inProgress(1);
  }

  return {
    /** Wraps a route handler of the runtime API; requests without the header run as before. */
    wrap<M extends Message>(operationId: string, handler: (msg: M, key: WriteKey) => Promise<unknown>) {
      return async (msg: M, meta: RequestMeta): Promise<unknown> => {
        const key = meta.headers[idempotencyKeyHeader];
        if (!key || !msg.tenant) return handler(msg, undefined);
        const scope = `${msg.tenant.envId}|${msg.session ? `account:${msg.session.accountId}` : `key:${msg.tenant.keyId}`}|${key}`;
        const id = digest(`idempotency-id|${scope}`).toString("hex");
        const secret = digest(`idempotency-reply|${scope}`);
        const fingerprint = digest(JSON.stringify([operationId, msg.params, msg.body])).toString("hex");
        const timeoutMs = Number(meta.headers[timeoutHeader]) || defaultTimeoutMs;

        const earlier = await claim(id, fingerprint, secret, timeoutMs);
        if (earlier) return new Replayed(earlier.replay);
        let value: unknown;
        try {
          value = await handler(msg, id);
        } catch (err) {
          // Nothing was written: release the key so a retry runs again.
          await records.delete({ _id: id, state: "pending" }).catch(() => 0);
          throw err;
        }
        failpoint("idempotency.before-record");
        // A write that recognised itself (see WriteKey) answers as a replay too.
        const answer = value instanceof Replayed ? value.value : value;
        await records.update({ _id: id }, { state: "done", reply: seal(secret, answer) }).catch((err) => {
          // The write stands; a retry runs again and a sync recognises it by its stamp.
          log.warn("idempotency record not written", { operationId, err });
        });
        return value;
      };
    },
  };
}
export type Idempotency = Awaited<ReturnType<typeof openIdempotency>>;
