/**
 * Messages this process built from values it had already checked with the route's own schemas (the
 * gateway's params, query and body; the session and tenant it resolved). A service in the same process
 * takes them as they are instead of parsing every field a second time with the same schemas. Only the
 * object itself is known here: a message that crossed NATS is a new object, never vouched for, so a
 * consumer checks whatever arrives from the wire (serve.ts).
 */
const vouched = new WeakSet<object>();

export function vouch<T extends object>(message: T): T {
  vouched.add(message);
  return message;
}

export const isVouched = (data: unknown): boolean => typeof data === "object" && data !== null && vouched.has(data);
