import { createInbox, type NatsConnection } from "nats";
import { fail } from "../contract/errors.ts";

interface Waiting {
  resolve(data: Uint8Array): void;
  reject(err: Error): void;
  deadline: number;
}

/**
 * The replies to this connection's requests, all on one inbox subscription (`<inbox>.<n>`), with one
 * timer for every request in flight, set for the earliest deadline: nats.js's own request() makes a
 * timer, two promises and an Error object for each request, a large share of a bus hop's CPU.
 * A reply resolves with its payload; no responders rejects with `service_unavailable`, a deadline
 * passed with `service_timeout`; anything `publish` throws is the caller's to map.
 */
export function createReplies(nc: NatsConnection) {
  const inbox = createInbox();
  const prefix = inbox.length + 1;
  const waiting = new Map<string, Waiting>();
  let seq = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Infinity;

  nc.subscribe(`${inbox}.*`, {
    callback: (_err, msg) => {
      const id = msg.subject.slice(prefix);
      const w = waiting.get(id);
      // A reply after its deadline (or after the connection dropped) finds no one waiting.
      if (!w) return;
      waiting.delete(id);
      // The server's "503, no responders" status: an empty message with that status header.
      if (msg.data.length === 0 && msg.headers?.code === 503) w.reject(fail.serviceUnavailable());
      else w.resolve(msg.data);
    },
  });

  const arm = (deadline: number) => {
    if (timer) clearTimeout(timer);
    armedFor = deadline;
    timer = setTimeout(sweep, Math.max(1, Math.ceil(deadline - performance.now())));
  };
  function sweep() {
    timer = undefined;
    armedFor = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const [id, w] of waiting) {
      if (w.deadline <= now) {
        waiting.delete(id);
        w.reject(fail.serviceTimeout());
      } else if (w.deadline < next) next = w.deadline;
    }
    if (next !== Infinity) arm(next);
  }

  return {
    send(subject: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
      const id = String(++seq);
      return new Promise<Uint8Array>((resolve, reject) => {
        const deadline = performance.now() + timeoutMs;
        nc.publish(subject, payload, { reply: `${inbox}.${id}` });
        waiting.set(id, { resolve, reject, deadline });
        if (deadline < armedFor) arm(deadline);
      });
    },

    /** Rejects every request in flight with `err` (their replies cannot arrive any more). */
    abandonAll(err: () => Error) {
      for (const w of waiting.values()) w.reject(err());
      waiting.clear();
      if (timer) clearTimeout(timer);
      timer = undefined;
      armedFor = Infinity;
    },
  };
}
