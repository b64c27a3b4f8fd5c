import {
  AckPolicy,
  type ConsumerMessages,
  connect,
  ErrorCode,
  Events,
  type JsMsg,
  type Msg,
  type NatsConnection,
  nanos,
  RetentionPolicy,
  StorageType,
  type Subscription,
} from "nats";
import { Limits } from "../contract/common.ts";
import { fail, isAppError } from "../contract/errors.ts";
import type { Logger } from "../observe/log.ts";
import { metrics } from "../observe/metrics.ts";
import { type Envelope, runHandler, unwrapEnvelope } from "./envelope.ts";
import { createReplies } from "./nats-replies.ts";
import { decode, decodeRequest, encode, encodeRequest } from "./nats-wire.ts";
import { coalesceWrites } from "./nats-writes.ts";
import {
  type Bus,
  type RequestHandler,
  type RequestOptions,
  requestIdHeader,
  requestTimeoutOf,
  type WorkOptions,
} from "./port.ts";
import { backoffAfter, failureText } from "./retry.ts";

// Deliveries past `maxDeliver` only record the job as dead: its worker died every time it ran it (a
// job that crashes the process), or recording it failed. JetStream stops after these spare ones.
const spareDeliveries = 3;

const decoder = new TextDecoder();

const streamName = (queue: string) => `WORK_${queue.toUpperCase().replace(/[^A-Z0-9_]/g, "_")}`;
const workSubject = (queue: string) => `work.${queue}`;

export interface NatsBusOptions {
  url: string;
  name: string;
  log: Logger;
  /** Replicas of the work-queue streams (SAVEPOINT_NATS_REPLICAS). */
  replicas?: number;
}

/**
 * NATS adapter: request-reply on queue groups (one group per service), core pub/sub for events, and a
 * JetStream work-queue stream per queue with one durable consumer shared by every worker.
 */
export async function createNatsBus({ url, name, log, replicas = 1 }: NatsBusOptions): Promise<Bus> {
  // A comma-separated NATS_URL names the nodes of a cluster; the client fails over between them.
  const servers = url
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // noAsyncTraces: nats.js otherwise builds an Error on every request for a stack it may never show.
  const nc: NatsConnection = await connect({
    servers,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    noAsyncTraces: true,
  });
  // The largest valid request (contract limits) and the 1 MiB body cap must fit one message.
  // Read before the close, which clears `nc.info`.
  const serverMax = nc.info?.max_payload;
  if (serverMax !== undefined && serverMax < Limits.requestBodyBytes) {
    await nc.close();
    throw new Error(`NATS_URL: server max_payload ${serverMax} is below ${Limits.requestBodyBytes} bytes`);
  }
  coalesceWrites(nc);
  const inFlight = new Set<Promise<unknown>>();
  const consumers: ConsumerMessages[] = [];
  const served: Subscription[] = [];
  let closing = false;
  // While the client reconnects it would hold requests until they time out: answer 503 at once instead.
  // Requests already sent when the connection drops may or may not have been served, and their replies
  // cannot come back on a new connection: they are 504 at once, not after the full timeout.
  let up = true;
  const replies = createReplies(nc);
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect) {
        up = false;
        replies.abandonAll(fail.serviceTimeout);
        log.warn("NATS connection lost; reconnecting", { server: s.data });
      } else if (s.type === Events.Reconnect) {
        up = true;
        log.info("NATS connection restored", { server: s.data });
      }
    }
  })();

  const jsm = await nc.jetstreamManager();
  const js = nc.jetstream();
  // The stream once per queue, whoever asks first (a producer or a worker); a worker then sets its
  // own consumer's retry settings (ensureConsumer).
  const ensured = new Map<string, Promise<void>>();
  const ensureStream = (queue: string) => {
    let p = ensured.get(queue);
    if (!p) {
      p = (async () => {
        const stream = streamName(queue);
        const existing = await jsm.streams.info(stream).catch(() => undefined);
        if (!existing) {
          const retention = RetentionPolicy.Workqueue;
          await jsm.streams.add({
            name: stream,
            subjects: [workSubject(queue)],
            retention,
            storage: StorageType.File,
            num_replicas: replicas,
          });
        } else if (existing.config.num_replicas !== replicas) {
          // A cluster grown since the stream was made: JetStream moves it to the new replica count.
          await jsm.streams.update(stream, { ...existing.config, num_replicas: replicas });
        }
      })();
      p.catch(() => ensured.delete(queue));
      ensured.set(queue, p);
    }
    return p;
  };
  const ensureConsumer = async (queue: string, options: WorkOptions) => {
    await ensureStream(queue);
    const stream = streamName(queue);
    const consumer = { ack_wait: nanos(options.ackWaitMs), max_deliver: options.maxDeliver + spareDeliveries };
    try {
      await jsm.consumers.info(stream, queue);
      await jsm.consumers.update(stream, queue, consumer);
    } catch {
      await jsm.consumers.add(stream, { durable_name: queue, ack_policy: AckPolicy.Explicit, ...consumer });
    }
  };

  const answer = async (msg: Msg, handler: RequestHandler, subject: string) => {
    let request: ReturnType<typeof decodeRequest>;
    try {
      request = decodeRequest(msg);
    } catch {
      return void msg.respond(
        encode({ ok: false, error: { code: "invalid_request", message: "Malformed bus message." } }),
      );
    }
    const { data, headers } = request;
    const reply = await runHandler(handler, data, headers, log, subject);
    try {
      if (!nc.isClosed()) msg.respond(encode(reply));
    } catch (err) {
      // A reply over max_payload: the requester times out, as nothing else can reach it.
      log.error("reply not sent", { subject, requestId: headers[requestIdHeader], err });
    }
  };

  return {
    maxPayload: nc.info?.max_payload ?? Limits.requestBodyBytes,
    inProcess: false,

    connected: () => up && !nc.isClosed(),

    async request(subject: string, data: unknown, options: RequestOptions = {}) {
      if (!up) throw fail.serviceUnavailable();
      const encoded = encodeRequest(data, options.headers);
      let reply: Uint8Array;
      try {
        reply = await replies.send(subject, encoded, requestTimeoutOf(options));
      } catch (err) {
        if (isAppError(err)) throw err;
        const code = (err as { code?: string }).code;
        if (code === ErrorCode.ConnectionClosed || code === ErrorCode.Disconnect) throw fail.serviceUnavailable();
        // Only a body the gateway forwards unparsed (a signed webhook) can outgrow a message.
        if (code === ErrorCode.MaxPayloadExceeded)
          throw fail.payloadTooLarge("body", nc.info?.max_payload ?? 0, encoded.byteLength);
        throw err;
      }
      return unwrapEnvelope(decode(reply) as Envelope);
    },

    serve(group, subject, handler) {
      const sub = nc.subscribe(subject, {
        queue: group,
        callback: (err, msg) => {
          if (err) return log.error("subscription failed", { subject, err });
          const work = answer(msg, handler, subject);
          inFlight.add(work);
          void work.then(() => inFlight.delete(work));
        },
      });
      served.push(sub);
    },

    publish(subject, data) {
      nc.publish(subject, encode(data));
    },

    subscribe(subject, handler) {
      nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) return log.error("subscription failed", { subject, err });
          try {
            handler(decode(msg.data));
          } catch (e) {
            log.error("event handler failed", { subject, err: e });
          }
        },
      });
    },

    async enqueue(queue, job) {
      await ensureStream(queue);
      // Resolves on the stream's ack: the job is stored before the caller answers anyone.
      await js.publish(workSubject(queue), encode(job));
    },

    work(queue, handler, options) {
      const count = (outcome: string) => metrics.jobs.inc({ queue, outcome });
      const deliver = async (m: JsMsg) => {
        const deliveries = m.info.deliveryCount;
        let job: unknown;
        try {
          job = decode(m.data);
        } catch {
          job = decoder.decode(m.data);
        }
        if (deliveries > options.maxDeliver) {
          await options.onDead(job, { deliveries: deliveries - 1, error: "its worker stopped while running it" });
          m.term();
          return count("dead");
        }
        // A long job tells JetStream it is alive, so only a dead worker's job comes back after ack_wait.
        const alive = setInterval(() => m.working(), Math.max(100, options.ackWaitMs / 2));
        try {
          await handler(job);
          // Acknowledged only now: the handler resolved after its writes were durable.
          m.ack();
          count("done");
        } catch (err) {
          if (deliveries < options.maxDeliver) {
            log.warn("job failed; will be redelivered", { queue, deliveries, err });
            m.nak(backoffAfter(options, deliveries));
            return count("retried");
          }
          log.error("job out of deliveries; dead-lettered", { queue, deliveries, err });
          await options.onDead(job, { deliveries, error: failureText(err) });
          m.term();
          count("dead");
        } finally {
          clearInterval(alive);
        }
      };
      void (async () => {
        await ensureConsumer(queue, options);
        const consumer = await js.consumers.get(streamName(queue), queue);
        const messages = await consumer.consume({ max_messages: 16 });
        consumers.push(messages);
        for await (const m of messages) {
          // Jobs already in this copy's buffer still come out after stop(): one started now would run
          // on a closing connection that cannot acknowledge it. Handed back, another worker takes it.
          if (closing) {
            m.nak();
            continue;
          }
          const run = deliver(m).catch((err) => {
            // Not even recorded as dead (the store is down): it comes back after the longest backoff.
            log.error("job not recorded", { queue, err });
            m.nak(backoffAfter(options, options.maxDeliver));
          });
          inFlight.add(run);
          await run;
          inFlight.delete(run);
        }
      })().catch((err) => {
        if (!closing) log.error("work queue consumer stopped", { queue, err });
      });
    },

    async close() {
      closing = true;
      for (const c of consumers) c.stop();
      // No new requests reach this copy (the queue group sends them to the others); the ones it
      // already took are answered before the connection goes.
      await Promise.allSettled(served.map((s) => s.drain()));
      await Promise.allSettled([...inFlight]);
      await nc.drain().catch(() => nc.close());
      // Requests still waiting get no reply on a closed connection.
      replies.abandonAll(fail.serviceUnavailable);
    },
  };
}
