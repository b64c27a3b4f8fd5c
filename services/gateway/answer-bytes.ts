import { fail } from "../../shared/contract/errors.ts";
import { metrics } from "../../shared/observe/metrics.ts";

/** An answer this small is never refused for the gateway's total: a read from another account gets through. */
export const smallAnswerBytes = 65_536;
/** Estimates remembered, by account and route; past this many the oldest go. */
const rememberedMost = 100_000;

export interface AnswerBytesOptions {
  /** Bytes of answers this gateway copy holds at once (SAVEPOINT_ANSWER_BYTES_IN_FLIGHT). */
  total: number;
  /** Of them, bytes one account's answers hold (SAVEPOINT_ACCOUNT_ANSWER_BYTES_IN_FLIGHT). */
  perAccount: number;
}

/** A request's share of the bytes in flight: its estimate, then its answer's size, until `release`. */
export interface AnswerHold {
  /** Replaces the estimate by the answer's size, or refuses the answer (then the hold is released). */
  settle(bytes: number): void;
  /** The answer is handed over (or failed): its bytes leave. Only the first call counts. */
  release(): void;
}

/**
 * Bytes of answers in flight in this gateway copy (docs/plans-and-limits.md): from admission until its answer is
 * handed to the HTTP server, each request holds its answer's bytes, estimated at admission as the last
 * answer of the same route for the same account (unknown: a small answer) and replaced by the real size
 * once the reply is rendered. (Bun then writes it, buffering what a slow client has not taken: that
 * part is out of the gateway's sight.) Past the account's bound it is 429 `rate_limited` (`scope: "account"`, Retry-After 1);
 * past the copy's total, an answer larger than `smallAnswerBytes` is 503 `service_unavailable` with
 * Retry-After 1. A refusal at admission costs no bus request; one at settling drops the rendered
 * answer at once. The request-count bound beside it is limits.ts.
 */
export function createAnswerBytes(options: AnswerBytesOptions) {
  const state = { held: 0 };
  const byAccount = new Map<string, number>();
  const learned = new Map<string, number>();

  const refuseAccount = () => {
    const setting = "SAVEPOINT_ACCOUNT_ANSWER_BYTES_IN_FLIGHT";
    return fail.rateLimited(
      { retryAfter: 1, windowSeconds: 1, limit: options.perAccount, scope: "account", setting },
      "bytes of answers in flight",
    );
  };
  /** Throws when `extra` more bytes, for an answer of `bytes`, would pass a bound. */
  const check = (accountId: string | undefined, bytes: number, extra: number) => {
    if (accountId !== undefined && (byAccount.get(accountId) ?? 0) + extra > options.perAccount) throw refuseAccount();
    if (bytes > smallAnswerBytes && state.held + extra > options.total) throw fail.serviceUnavailable(1);
  };
  const move = (accountId: string | undefined, by: number) => {
    state.held += by;
    metrics.answerBytes.add(by);
    if (accountId === undefined) return;
    const left = (byAccount.get(accountId) ?? 0) + by;
    if (left > 0) byAccount.set(accountId, left);
    else byAccount.delete(accountId);
  };

  return {
    /** Holds the request's estimate, or refuses it (429 or 503) before any work. */
    enter(accountId: string | undefined, route: string): AnswerHold {
      const key = `${accountId ?? ""} ${route}`;
      let held = accountId === undefined ? smallAnswerBytes : (learned.get(key) ?? smallAnswerBytes);
      check(accountId, held, held);
      move(accountId, held);
      let done = false;
      const release = () => {
        if (done) return;
        done = true;
        move(accountId, -held);
      };
      return {
        settle(bytes: number) {
          if (done) return;
          if (accountId !== undefined) {
            if (learned.size >= rememberedMost && !learned.has(key)) learned.delete(learned.keys().next().value!);
            learned.set(key, bytes);
          }
          if (bytes > held) {
            try {
              check(accountId, bytes, bytes - held);
            } catch (err) {
              release();
              throw err;
            }
          }
          move(accountId, bytes - held);
          held = bytes;
        },
        release,
      };
    },
  };
}
