import { fail } from "../contract/errors.ts";
import type { Logger } from "../log.ts";
import { type Bus, type RequestHandler, type RequestOptions, defaultRequestTimeoutMs, requestIdHeader } from "./port.ts";
import { type Reply, runHandler, unwrapReply } from "./reply.ts";

// Messages cross as JSON text, as on NATS, so both adapters see the same values (no shared objects,
// no Dates or undefined sneaking through).
const roundTrip = (value: unknown) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/**
 * In-process bus for the embedded deployment. Requests go round-robin over a subject's handlers;
 * events are delivered synchronously, so a cache drop happens before the publisher's reply. The work
 * queue lives in memory: the embedded services re-enqueue pending work from the store at start.
 */
export function createLocalBus(log: Logger): Bus {
  const servers = new Map<string, { handlers: RequestHandler[]; next: number }>();
  const subscribers = new Map<string, ((data: unknown) => void)[]>();
  const queues = new Map<string, { jobs: unknown[]; handler?: (job: unknown) => Promise<void>; running: boolean }>();
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };

  const queueOf = (name: string) => {
    let q = queues.get(name);
    if (!q) queues.set(name, (q = { jobs: [], running: false }));
    return q;
  };

  async function drain(name: string) {
    const q = queueOf(name);
    if (q.running || !q.handler) return;
    q.running = true;
    while (q.jobs.length > 0 && !closed) {
      const job = q.jobs.shift();
      try {
        await track(q.handler(roundTrip(job)));
      } catch (err) {
        log.warn("job failed; retrying", { queue: name, err });
        q.jobs.push(job);
        await Bun.sleep(500);
      }
    }
    q.running = false;
  }

  return {
    maxPayload: Number.POSITIVE_INFINITY,

    async request(subject: string, data: unknown, options: RequestOptions = {}) {
      const entry = servers.get(subject);
      if (closed || !entry || entry.handlers.length === 0) throw fail.serviceUnavailable();
      const handler = entry.handlers[entry.next++ % entry.handlers.length];
      const headers = options.headers ?? {};
      const work = track(
        runHandler(handler, roundTrip(data), { headers, requestId: headers[requestIdHeader] }, log, subject),
      );
      let timer: Timer | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(fail.serviceTimeout()), options.timeoutMs ?? defaultRequestTimeoutMs);
      });
      try {
        return unwrapReply(roundTrip(await Promise.race([work, timeout])) as Reply);
      } finally {
        clearTimeout(timer);
      }
    },

    serve(_group, subject, handler) {
      const entry = servers.get(subject) ?? { handlers: [], next: 0 };
      entry.handlers.push(handler);
      servers.set(subject, entry);
    },

    publish(subject, data) {
      for (const handler of subscribers.get(subject) ?? []) {
        try {
          handler(roundTrip(data));
        } catch (err) {
          log.error("event handler failed", { subject, err });
        }
      }
    },

    subscribe(subject, handler) {
      subscribers.set(subject, [...(subscribers.get(subject) ?? []), handler]);
    },

    async enqueue(queue, job) {
      queueOf(queue).jobs.push(roundTrip(job));
      void drain(queue);
    },

    work(queue, handler) {
      queueOf(queue).handler = handler;
      void drain(queue);
    },

    async close() {
      closed = true;
      servers.clear();
      subscribers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
