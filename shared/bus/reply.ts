import { AppError, fail, isAppError } from "../contract/errors.ts";
import type { Logger } from "../process/log.ts";
import { StoreUnavailableError } from "../store/port.ts";
import type { RequestHandler, RequestMeta } from "./port.ts";

/** What crosses the wire as a reply. An error carries only its code, message and details. */
export type Reply = { ok: true; value: unknown; replayed?: true } | { ok: false; error: ReturnType<AppError["toJSON"]> };

/** A handler's answer given again to a retry with the same Idempotency-Key (shared/serving/idempotency.ts). */
export class Replayed {
  constructor(readonly value: unknown) {}
}

/**
 * Runs a handler and turns its outcome into a Reply. Expected errors cross as codes; anything else is
 * logged with its cause and crosses as `internal_error`, so a stack trace never leaves the service.
 */
export async function runHandler(handler: RequestHandler, data: unknown, meta: RequestMeta, log: Logger, subject: string): Promise<Reply> {
  try {
    const value = await handler(data, meta);
    return value instanceof Replayed ? { ok: true, value: value.value, replayed: true } : { ok: true, value };
  } catch (err) {
    if (isAppError(err)) return { ok: false, error: err.toJSON() };
    if (err instanceof StoreUnavailableError) {
      log.warn("store unavailable", { subject, requestId: meta.requestId, err: err.cause });
      return { ok: false, error: fail.serviceUnavailable().toJSON() };
    }
    log.error("handler failed", { subject, requestId: meta.requestId, err });
    return { ok: false, error: fail.internal(meta.requestId).toJSON() };
  }
}

/** Turns a Reply back into a value (a `Replayed` one for a replay) or a thrown AppError on the caller's side. */
export function unwrapReply(reply: Reply): unknown {
  if (reply.ok) return reply.replayed ? new Replayed(reply.value) : reply.value;
  throw new AppError(reply.error.code as AppError["code"], reply.error.message, reply.error.details);
}
