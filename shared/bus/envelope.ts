import { AppError, fail, isAppError } from "../contract/errors.ts";
import type { Logger } from "../observe/log.ts";
import { type RequestHandler, type RequestMeta, requestIdHeader } from "./port.ts";

/** What crosses the wire as a reply. An error carries only its code, message and details. */
export type Envelope = { ok: true; value: unknown } | { ok: false; error: ReturnType<AppError["toJSON"]> };

/**
 * Runs a handler and turns its outcome into an Envelope. Expected errors cross as codes; anything else is
 * logged with its cause and crosses as `internal_error`, so a stack trace never leaves the service.
 * What a failure means (a store outage, a bad message) is the serving layer's to say (shared/serving/host.ts).
 * Either adapter calls it with the request's headers, the request id among them.
 */
export async function runHandler(
  handler: RequestHandler,
  data: unknown,
  headers: Record<string, string>,
  log: Logger,
  subject: string,
): Promise<Envelope> {
  const meta: RequestMeta = { headers, requestId: headers[requestIdHeader] };
  try {
    return { ok: true, value: await handler(data, meta) };
  } catch (err) {
    if (isAppError(err)) return { ok: false, error: err.toJSON() };
    log.error("handler failed", { subject, requestId: meta.requestId, err });
    return { ok: false, error: fail.internal(meta.requestId).toJSON() };
  }
}

/** Turns an Envelope back into a value or a thrown AppError on the caller's side. */
export function unwrapEnvelope(envelope: Envelope): unknown {
  if (envelope.ok) return envelope.value;
  throw new AppError(envelope.error.code as AppError["code"], envelope.error.message, envelope.error.details);
}
