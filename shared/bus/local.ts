import { fail } from "../contract/errors.ts";
import type { Logger } from "../observe/log.ts";
import { metrics } from "../observe/metrics.ts";
import { runHandler, unwrapEnvelope } from "./envelope.ts";
import { type Bus, type RequestHandler, type RequestOptions, requestTimeoutOf, type WorkOptions } from "./port.ts";
import { backoffAfter, failureText } from "./retry.ts";

type Entry = { job: unknown; deliveries: number; notBefore: number };

// Events and jobs cross as JSON text, as on NATS, so a subscriber or a retried job never shares an
// object with its sender. Requests and replies do not: they are built for one reader, who is done
// with them once answered, and copying them was a fifth of the embedded deployment's CPU per sync.
const roundTrip = (value: unknown) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/**
 * In-process bus for the embedded deployment. Requests go round-robin over a subject's handlers;
 * events are delivered synchronously, so a cache drop happens before the publisher's reply. The work
 * queue lives in memory; what makes it durable is the store: a service marks pending work in its own
 * documents before enqueueing it, and re-enqueues whatever is still marked at start.
 */
export function createLocalBus(log: Logger): Bus {
  const servers = new Map<string, { handlers: RequestHandler[]; next: number }>();
  const subscribers = new Map<string, ((data: unknown) => void)[]>();
  const queues = new Map<
    string,
    { jobs: Entry[]; handler?: (job: unknown) => Promise<void>; options?: WorkOptions; running: boolean }
  >();
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };

  const queueOf = (name: string) => {
    let q = queues.get(name);
    if (!q) {
      q = { jobs: [], running: false };
      queues.set(name, q);
    }
    return q;
  };

  // One job at a time per queue, the first whose backoff has passed; a failure waits out its own
  // backoff without holding up the jobs behind it.
  async function drain(name: string) {
    const q = queueOf(name);
    if (q.running || !q.handler || !q.options) return;
    const { handler, options } = q;
    q.running = true;
    while (q.jobs.length > 0 && !closed) {
      const now = Date.now();
      const next = q.jobs.findIndex((e) => e.notBefore <= now);
      if (next < 0) {
        await Bun.sleep(Math.min(...q.jobs.map((e) => e.notBefore)) - now);
        continue;
      }
      const [entry] = q.jobs.splice(next, 1) as [Entry];
      entry.deliveries++;
      try {
        await track(handler(roundTrip(entry.job)));
        metrics.jobs.inc({ queue: name, outcome: "done" });
      } catch (err) {
        if (entry.deliveries < options.maxDeliver) {
          log.warn("job failed; will be redelivered", { queue: name, deliveries: entry.deliveries, err });
          metrics.jobs.inc({ queue: name, outcome: "retried" });
          q.jobs.push({ ...entry, notBefore: Date.now() + backoffAfter(options, entry.deliveries) });
          continue;
        }
        log.error("job out of deliveries; dead-lettered", { queue: name, deliveries: entry.deliveries, err });
        await track(options.onDead(entry.job, { deliveries: entry.deliveries, error: failureText(err) })).then(
          () => metrics.jobs.inc({ queue: name, outcome: "dead" }),
          // Not even recorded: keep it, and try again after the longest backoff.
          () => q.jobs.push({ ...entry, notBefore: Date.now() + backoffAfter(options, options.maxDeliver) }),
        );
      }
    }
    q.running = false;
  }

  return {
    maxPayload: Number.POSITIVE_INFINITY,
    inProcess: true,

    async request(subject: string, data: unknown, options: RequestOptions = {}) {
      const entry = servers.get(subject);
      if (closed || !entry || entry.handlers.length === 0) throw fail.serviceUnavailable();
      const handler = entry.handlers[entry.next++ % entry.handlers.length];
      const headers = options.headers ?? {};
      const work = track(runHandler(handler, data, headers, log, subject));
      let timer: Timer | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(fail.serviceTimeout()), requestTimeoutOf(options));
      });
      try {
        return unwrapEnvelope(await Promise.race([work, timeout]));
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
      queueOf(queue).jobs.push({ job: roundTrip(job), deliveries: 0, notBefore: 0 });
      void drain(queue);
    },

    work(queue, handler, options) {
      Object.assign(queueOf(queue), { handler, options });
      void drain(queue);
    },

    connected: () => !closed,

    async close() {
      closed = true;
      servers.clear();
      subscribers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
