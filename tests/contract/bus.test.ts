import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Socket } from "node:net";
import { connect, headers, type MsgHdrs, type NatsConnection } from "nats";
import { createLocalBus } from "../../shared/bus/local.ts";
import { createNatsBus } from "../../shared/bus/nats.ts";
import type { Bus, WorkOptions } from "../../shared/bus/port.ts";
import { AppError } from "../../shared/contract/errors.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { nats, startNats } from "../helpers/infra.ts";

const log = createLogger({ test: "bus" });
const dead: [unknown, { deliveries: number; error: string }][] = [];
const retries: WorkOptions = {
  maxDeliver: 3,
  backoffMs: [50, 100],
  ackWaitMs: 2_000,
  onDead: async (job, failure) => void dead.push([job, failure]),
};
const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as AppError,
  );

const adapters: [string, () => Promise<Bus>, boolean][] = [
  ["local", async () => createLocalBus(log), false],
  ["nats", async () => createNatsBus({ url: (await nats()).url, name: "test", log }), true],
];

for (const [name, open, durable] of adapters) {
  describe(`bus contract: ${name}`, () => {
    let bus: Bus;
    const subject = (s: string) => `t.${s}.${crypto.randomUUID().slice(0, 8)}`;
    beforeAll(async () => {
      bus = await open();
    });
    afterAll(() => bus.close());

    test("request reaches the handler with headers and resolves with its value", async () => {
      const s = subject("echo");
      bus.serve("g", s, async (data, meta) => ({ got: data, requestId: meta.requestId }));
      await Bun.sleep(20);
      expect(await bus.request(s, { a: [1, { b: "é" }] }, { headers: { "x-request-id": "req_1" } })).toEqual({
        got: { a: [1, { b: "é" }] },
        requestId: "req_1",
      });
    });

    test("an AppError crosses with its code and details", async () => {
      const s = subject("fail");
      bus.serve("g", s, async () => {
        throw new AppError("slot_archived", "archived", { slotId: "x" });
      });
      await Bun.sleep(20);
      const err = await caught(bus.request(s, {}));
      expect(err).toBeInstanceOf(AppError);
      expect([err!.code, err!.details]).toEqual(["slot_archived", { slotId: "x" }]);
    });

    test("an unexpected throw becomes internal_error without its message or stack", async () => {
      const s = subject("boom");
      bus.serve("g", s, async () => {
        throw new Error("secret database detail");
      });
      await Bun.sleep(20);
      const err = await caught(bus.request(s, {}, { headers: { "x-request-id": "req_2" } }));
      expect(err!.code).toBe("internal_error");
      expect(JSON.stringify(err!.toJSON())).not.toContain("secret database detail");
      expect(err!.details).toEqual({ requestId: "req_2" });
    });

    test("no responders is service_unavailable; a slow handler is service_timeout", async () => {
      expect((await caught(bus.request(subject("nobody"), {})))!.code).toBe("service_unavailable");
      const s = subject("slow");
      bus.serve("g", s, () => Bun.sleep(500).then(() => "late"));
      await Bun.sleep(20);
      expect((await caught(bus.request(s, {}, { timeoutMs: 100 })))!.code).toBe("service_timeout");
    });

    test("instances in one group share requests; each request is answered once", async () => {
      const s = subject("group");
      const seen = [0, 0];
      bus.serve("workers", s, async () => ++seen[0]!);
      bus.serve("workers", s, async () => ++seen[1]!);
      await Bun.sleep(20);
      await Promise.all(Array.from({ length: 40 }, () => bus.request(s, {})));
      expect(seen[0]! + seen[1]!).toBe(40);
      expect(seen[0]).toBeGreaterThan(0);
      expect(seen[1]).toBeGreaterThan(0);
    });

    test("publish reaches every subscriber", async () => {
      const s = subject("event");
      const got: unknown[] = [];
      bus.subscribe(s, (d) => got.push(["a", d]));
      bus.subscribe(s, (d) => got.push(["b", d]));
      await Bun.sleep(20);
      bus.publish(s, { n: 1 });
      for (let i = 0; i < 50 && got.length < 2; i++) await Bun.sleep(10);
      expect(got).toContainEqual(["a", { n: 1 }]);
      expect(got).toContainEqual(["b", { n: 1 }]);
    });

    test("a job whose handler fails is delivered again", async () => {
      const queue = `q${crypto.randomUUID().slice(0, 8)}`;
      const attempts: unknown[] = [];
      bus.work(
        queue,
        async (job) => {
          attempts.push(job);
          if (attempts.length === 1) throw new Error("transient");
        },
        retries,
      );
      await bus.enqueue(queue, { id: 7 });
      for (let i = 0; i < 300 && attempts.length < 2; i++) await Bun.sleep(10);
      expect(attempts).toEqual([{ id: 7 }, { id: 7 }]);
    });

    test("a job that keeps failing is delivered maxDeliver times, backing off, then dead-lettered once", async () => {
      const queue = `q${crypto.randomUUID().slice(0, 8)}`;
      const at: number[] = [];
      bus.work(
        queue,
        async () => {
          at.push(Date.now());
          throw new Error("poison");
        },
        retries,
      );
      const id = `poison-${name}`;
      await bus.enqueue(queue, { id });
      for (let i = 0; i < 300 && !dead.some(([job]) => (job as { id?: string }).id === id); i++) await Bun.sleep(10);
      await Bun.sleep(300);
      expect(at).toHaveLength(3);
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(45);
      expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(95);
      expect(dead.filter(([job]) => (job as { id?: string }).id === id)).toEqual([
        [{ id }, { deliveries: 3, error: "poison" }],
      ]);
    });

    if (durable) {
      test("a queued job outlives the connection that queued it", async () => {
        const queue = `q${crypto.randomUUID().slice(0, 8)}`;
        const producer = await open();
        await producer.enqueue(queue, { id: "durable" });
        await producer.close();
        const consumer = await open();
        const got: unknown[] = [];
        consumer.work(queue, async (job) => void got.push(job), retries);
        for (let i = 0; i < 300 && got.length < 1; i++) await Bun.sleep(10);
        await consumer.close();
        expect(got).toEqual([{ id: "durable" }]);
      });

      test("a job still in the worker's buffer when it closes is not started there, and comes back to the next worker", async () => {
        const queue = `q${crypto.randomUUID().slice(0, 8)}`;
        const worker = await open();
        const started: string[] = [];
        let release = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        worker.work(
          queue,
          async (job) => {
            const id = (job as { id: string }).id;
            started.push(id);
            if (id === "first") await held;
          },
          retries,
        );
        await worker.enqueue(queue, { id: "first" });
        await worker.enqueue(queue, { id: "second" });
        for (let i = 0; i < 300 && started.length < 1; i++) await Bun.sleep(10);
        // The second is delivered to this worker meanwhile, and waits behind the first.
        await Bun.sleep(200);
        const closed = worker.close();
        await Bun.sleep(50);
        release();
        await closed;
        // Started there, it would run on a closing connection that can no longer acknowledge it.
        expect(started).toEqual(["first"]);
        const next = await open();
        const got: unknown[] = [];
        next.work(queue, async (job) => void got.push(job), retries);
        for (let i = 0; i < 500 && got.length < 1; i++) await Bun.sleep(10);
        await next.close();
        expect(got).toEqual([{ id: "second" }]);
      });
    }
  });
}

test("the NATS adapter refuses a server whose max_payload cannot carry a 1 MiB body", async () => {
  const small = await startNats({ maxPayload: 65536 });
  try {
    // Awaited before the server stops: a stop first would make it a refused connection instead.
    await expect(createNatsBus({ url: small.url, name: "test", log })).rejects.toThrow(
      "NATS_URL: server max_payload 65536 is below 1048576 bytes",
    );
  } finally {
    small.stop();
  }
});

describe("NATS request wire", () => {
  let bus: Bus;
  let raw: NatsConnection;
  const subject = (s: string) => `w.${s}.${crypto.randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    const { url } = await nats();
    bus = await createNatsBus({ url, name: "test-wire", log });
    raw = await connect({ servers: url });
  });
  afterAll(async () => {
    await bus.close();
    await raw.close();
  });

  test("a request is one message without NATS headers, and its headers still reach the handler", async () => {
    const s = subject("plain");
    bus.serve("g", s, async (_data, meta) => ({ requestId: meta.requestId, other: meta.headers["x-other"] }));
    const seen: (MsgHdrs | undefined)[] = [];
    raw.subscribe(s, { callback: (_err, msg) => seen.push(msg.headers) });
    await raw.flush();
    await Bun.sleep(20);
    const reply = await bus.request(s, { a: 1 }, { headers: { "x-request-id": "req_w1", "x-other": "o" } });
    expect(reply).toEqual({ requestId: "req_w1", other: "o" });
    expect(seen).toEqual([undefined]);
  });

  test("a client that sends NATS headers is still served, with its request id", async () => {
    const s = subject("headers");
    bus.serve("g", s, async (data, meta) => ({ got: data, requestId: meta.requestId }));
    await Bun.sleep(20);
    const h = headers();
    h.set("x-request-id", "req_w2");
    const msg = await raw.request(s, new TextEncoder().encode(JSON.stringify({ b: 2 })), {
      timeout: 2_000,
      headers: h,
    });
    expect(JSON.parse(new TextDecoder().decode(msg.data))).toEqual({
      ok: true,
      value: { got: { b: 2 }, requestId: "req_w2" },
    });
  });

  test("requests in flight share one timer rather than one each", async () => {
    const s = subject("timers");
    bus.serve("g", s, async () => "ok");
    await Bun.sleep(20);
    const real = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof real>) => {
      timers++;
      return real(...args);
    }) as typeof real;
    try {
      await Promise.all(Array.from({ length: 40 }, () => bus.request(s, {})));
    } finally {
      globalThis.setTimeout = real;
    }
    expect(timers).toBeLessThan(5);
  });

  test("requests made in one turn of the event loop leave in one socket write", async () => {
    const s = subject("writes");
    const server = await createNatsBus({ url: (await nats()).url, name: "test-wire-server", log });
    server.serve("g", s, async () => "ok");
    await Bun.sleep(50);
    const real = Socket.prototype.write;
    let writes = 0;
    Socket.prototype.write = function (this: Socket, ...args: unknown[]) {
      writes++;
      return (real as (...a: unknown[]) => boolean).apply(this, args);
    } as typeof real;
    try {
      // As a gateway makes them: each from its own callback (an HTTP request each), none awaiting another.
      const sent = Array.from(
        { length: 20 },
        () => new Promise((resolve) => setImmediate(() => resolve(bus.request(s, {})))),
      );
      expect(await Promise.all(sent)).toEqual(Array(20).fill("ok"));
    } finally {
      Socket.prototype.write = real;
      await server.close();
    }
    // The 20 requests in one write, and the replies in a few: not one write per message.
    expect(writes).toBeLessThan(10);
  });

  test("a short timeout behind a longer one still times out, first", async () => {
    const s = subject("short");
    bus.serve("g", s, () => Bun.sleep(1_500).then(() => "late"));
    await Bun.sleep(20);
    const order: string[] = [];
    const long = caught(bus.request(s, {}, { timeoutMs: 1_000 })).then((e) => order.push(`long ${e?.code}`));
    const short = caught(bus.request(s, {}, { timeoutMs: 100 })).then((e) => order.push(`short ${e?.code}`));
    await Promise.all([long, short]);
    expect(order).toEqual(["short service_timeout", "long service_timeout"]);
  });
});
