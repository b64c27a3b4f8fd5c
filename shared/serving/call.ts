import type { z } from "zod";
import type { Bus, RequestOptions } from "../bus/port.ts";
import { isAppError } from "../contract/errors.ts";
import type { Endpoint } from "../contract/internal.ts";
import { failed, fromWire, type Reply } from "./reply.ts";

/** Calls an endpoint and checks the reply's shape. */
export async function callEndpoint<Req extends z.ZodType, Res extends z.ZodType>(
  bus: Bus,
  e: Endpoint<Req, Res>,
  input: z.infer<Req>,
  options?: RequestOptions,
): Promise<z.infer<Res>> {
  return e.reply.parse(await bus.request(e.subject, input, options));
}

/**
 * Sends a route's message and answers its reply: an expected failure, the service's or the bus's
 * (unavailable, timed out), is the `error` kind; only a fault of this process is thrown.
 */
export async function requestRoute(bus: Bus, subject: string, msg: unknown, options?: RequestOptions): Promise<Reply> {
  try {
    return fromWire(await bus.request(subject, msg, options));
  } catch (err) {
    if (isAppError(err)) return failed(err);
    throw err;
  }
}

/** A route's answer as a value, for a reader that is not the client (the audit log's reads): a failure is thrown. */
export async function callRoute(bus: Bus, subject: string, msg: unknown, options?: RequestOptions): Promise<unknown> {
  const reply = await requestRoute(bus, subject, msg, options);
  if (reply.kind === "error") throw reply.error;
  return reply.value;
}
