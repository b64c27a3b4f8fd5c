import type { AppError } from "../contract/errors.ts";

export type Accepted<T = unknown> = { readonly kind: "accepted"; readonly value: T };
export type Replayed<T = unknown> = { readonly kind: "replayed"; readonly value: T };
export type Conflict<T = unknown> = { readonly kind: "conflict"; readonly value: T };
export type Failed = { readonly kind: "error"; readonly error: AppError };

/**
 * What a route answers: one closed union, so the gateway renders each outcome in one switch
 * (services/gateway/reply.ts). The kinds are the client's own distinctions (docs/api-rules.md#versions-and-conflicts,
 * docs/api-rules.md#idempotent-retries):
 * - `accepted`: the route's success status and body;
 * - `replayed`: the first answer given again to a retry with its Idempotency-Key: the success status,
 *   and `Idempotent-Replayed: true`;
 * - `conflict`: a stale write that changed nothing: 409 with the server's state as its body (not an
 *   error envelope), never recorded for a replay;
 * - `error`: a failure, in the error envelope. A service throws it and the bus carries it as an error,
 *   as for every request; `requestRoute` (call.ts) folds it in on the caller's side.
 */
export type Reply<T = unknown> = Accepted<T> | Replayed<T> | Conflict<T> | Failed;

/** The kinds a service answers with; an error is thrown instead. */
export type SentReply<T = unknown> = Accepted<T> | Replayed<T> | Conflict<T>;

// Marks the replies built here (hidden from spreads and JSON), so a verb's plain value is never taken
// for one because of its shape.
const made = Symbol("reply");
const mark = <R extends SentReply>(reply: R): R => Object.defineProperty(reply, made, { value: true });

export const accepted = <T>(value: T): Accepted<T> => mark({ kind: "accepted", value });
export const replayed = <T>(value: T): Replayed<T> => mark({ kind: "replayed", value });
export const conflict = <T>(value: T): Conflict<T> => mark({ kind: "conflict", value });
export const failed = (error: AppError): Failed => ({ kind: "error", error });

/** A verb's answer as a reply: a plain value is `accepted`, as most verbs have no other outcome. */
export function replyOf(answer: unknown): SentReply {
  return typeof answer === "object" && answer !== null && made in answer
    ? (answer as unknown as SentReply)
    : accepted(answer);
}

/** The reply as the bus carries it: plain JSON, the same in process and over NATS. */
export const onWire = (reply: SentReply) => ({ kind: reply.kind, value: reply.value });

const sentKinds: readonly string[] = ["accepted", "replayed", "conflict"] satisfies SentReply["kind"][];

/** Reads a reply off the bus; anything else is a service answering outside the contract. */
export function fromWire(wire: unknown): SentReply {
  const kind = (wire as { kind?: unknown } | null)?.kind;
  if (typeof kind !== "string" || !sentKinds.includes(kind))
    throw new Error(`a reply outside the contract: ${String(kind)}`);
  return { kind: kind as SentReply["kind"], value: (wire as { value: unknown }).value };
}

/** Compile-time proof that a switch over the kinds handled every one. */
export function unreachable(reply: never): never {
  throw new Error(`unhandled reply: ${JSON.stringify(reply)}`);
}
