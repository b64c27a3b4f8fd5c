import type { NatsConnection } from "nats";

/**
 * nats.js writes to its socket at the end of the microtask queue that filled its buffer: a gateway
 * answering many HTTP requests in one turn of the event loop then makes one socket write (a syscall,
 * 5-11 µs) per bus request. Deferred to the end of the turn (setImmediate), the requests and replies
 * of one turn leave in one write. `flushPending` is nats.js 2.x's own hook for this (its
 * ProtocolHandler); a client without it is left as it is.
 */
export function coalesceWrites(nc: NatsConnection): void {
  const protocol = (nc as { protocol?: { flushPending?: () => void } }).protocol;
  if (!protocol || typeof protocol.flushPending !== "function") return;
  const flushNow = protocol.flushPending.bind(protocol);
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    flushNow();
  };
  protocol.flushPending = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
}
