import {
  AckPolicy,
  type ConsumerMessages,
  ErrorCode,
  type NatsConnection,
  RetentionPolicy,
  StorageType,
  connect,
  headers as natsHeaders,
  nanos,
} from "nats";
import { fail } from "../contract/errors.ts";
import { Limits } from "../contract/common.ts";
import type { Logger } from "../log.ts";
import { type Bus, type Headers, type RequestOptions, defaultRequestTimeoutMs, requestIdHeader } from "./port.ts";
import { type Reply, runHandler, unwrapReply } from "./reply.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (value: unknown) => encoder.encode(JSON.stringify(value ?? null));
const decode = (bytes: Uint8Array) => (bytes.length === 0 ? undefined : JSON.parse(decoder.decode(bytes)));

const streamName = (queue: string) => `WORK_${queue.toUpperCase().replace(/[^A-Z0-9_]/g, "_")}`;
const workSubject = (queue: string) => `work.${queue}`;

function headersOf(h: Headers | undefined) {
  if (!h || Object.keys(h).length === 0) return undefined;
  const out = natsHeaders();
  for (const [k, v] of Object.entries(h)) out.set(k, v);
  return out;
}

export interface NatsBusOptions {
  url: string;
  name: string;
  log: Logger;
}

/**
 * NATS adapter: request-reply on queue groups (one group per service), core pub/sub for events, and a
 * JetStream work-queue stream per queue with one durable consumer shared by every worker.
 */
export async function createNatsBus({ url, name, log }: NatsBusOptions): Promise<Bus> {
  const nc: NatsConnection = await connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
  // The largest valid request (contract limits) and the 1 MiB body cap must fit one message.
  if (nc.info && nc.info.max_payload < Limits.requestBodyBytes) {
    await nc.close();
    throw new Error(`NATS_URL: server max_payload ${nc.info.max_payload} is below ${Limits.requestBodyBytes} bytes`);
  }
  const inFlight = new Set<Promise<unknown>>();
  const consumers: ConsumerMessages[] = [];
  let closing = false;

  const jsm = await nc.jetstreamManager();
  const js = nc.jetstream();
  const ensured = new Map<string, Promise<void>>();
  const ensureQueue = (queue: string) => {
    let p = ensured.get(queue);
    if (!p) {
      p = (async () => {
        const stream = streamName(queue);
        try {
          await jsm.streams.info(stream);
        } catch {
          await jsm.streams.add({ name: stream, subjects: [workSubject(queue)], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
        }
        try {
          await jsm.consumers.info(stream, queue);
        } catch {
          await jsm.consumers.add(stream, { durable_name: queue, ack_policy: AckPolicy.Explicit, ack_wait: nanos(30_000) });
        }
      })();
      p.catch(() => ensured.delete(queue));
      ensured.set(queue, p);
    }
    return p;
  };

  return {
    maxPayload: nc.info?.max_payload ?? Limits.requestBodyBytes,

    async request(subject: string, data: unknown, options: RequestOptions = {}) {
      const encoded = encode(data);
      try {
        const msg = await nc.request(subject, encoded, {
          timeout: options.timeoutMs ?? defaultRequestTimeoutMs,
          headers: headersOf(options.headers),
        });
        return unwrapReply(decode(msg.data) as Reply);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === ErrorCode.NoResponders) throw fail.serviceUnavailable();
        if (code === ErrorCode.Timeout) throw fail.serviceTimeout();
        if (code === ErrorCode.ConnectionClosed || code === ErrorCode.Disconnect) throw fail.serviceUnavailable();
        // Only a body the gateway forwards unparsed (a signed webhook) can outgrow a message.
        if (code === ErrorCode.MaxPayloadExceeded) throw fail.payloadTooLarge("body", nc.info?.max_payload ?? 0, encoded.byteLength);
        throw err;
      }
    },

    serve(group, subject, handler) {
      nc.subscribe(subject, {
        queue: group,
        callback: (err, msg) => {
          if (err) return log.error("subscription failed", { subject, err });
          const headers: Headers = {};
          for (const k of msg.headers?.keys() ?? []) headers[k.toLowerCase()] = msg.headers!.get(k);
          const work = (async () => {
            let data: unknown;
            try {
              data = decode(msg.data);
            } catch {
              return msg.respond(encode({ ok: false, error: { code: "invalid_request", message: "Malformed bus message." } }));
            }
            const reply = await runHandler(handler, data, { headers, requestId: headers[requestIdHeader] }, log, subject);
            if (!nc.isClosed()) msg.respond(encode(reply));
          })();
          inFlight.add(work);
          work.finally(() => inFlight.delete(work));
        },
      });
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
      await ensureQueue(queue);
      // Resolves on the stream's ack: the job is stored before the caller answers anyone.
      await js.publish(workSubject(queue), encode(job));
    },

    work(queue, handler) {
      void (async () => {
        await ensureQueue(queue);
        const consumer = await js.consumers.get(streamName(queue), queue);
        const messages = await consumer.consume({ max_messages: 16 });
        consumers.push(messages);
        for await (const m of messages) {
          const run = handler(decode(m.data)).then(
            () => m.ack(),
            (err) => {
              log.warn("job failed; will be redelivered", { queue, err });
              m.nak(1_000);
            },
          );
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
      await Promise.allSettled([...inFlight]);
      await nc.drain().catch(() => nc.close());
    },
  };
}
