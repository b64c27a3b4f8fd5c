import { expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { recycleWhenStuck } from "../../shared/store/mongo-recycle.ts";

/** A client whose server events the test sends; it counts closes and connects, and connects as told. */
function fakeClient(connects: () => boolean) {
  const events = new EventEmitter();
  const calls: string[] = [];
  return {
    calls,
    server: (type: string) => events.emit("serverDescriptionChanged", { newDescription: { type } }),
    on: (event: "serverDescriptionChanged", listener: (e: { newDescription: { type: string } }) => void) =>
      events.on(event, listener),
    close: async () => void calls.push("close"),
    connect: async () => {
      calls.push("connect");
      if (!connects()) throw new Error("connect ECONNREFUSED");
    },
  };
}

/** Polls until `done` holds or 5 s have passed (timers run late on a loaded machine). */
async function eventually(done: () => boolean) {
  for (const end = Date.now() + 5_000; !done() && Date.now() < end; ) await Bun.sleep(10);
}

test("a server that stays Unknown past the limit gets a fresh connection; one that comes back in time does not", async () => {
  const client = fakeClient(() => true);
  const watchdog = recycleWhenStuck(client, 1_000, 20);
  client.server("Unknown");
  await Bun.sleep(50);
  client.server("Standalone");
  await Bun.sleep(1_200);
  expect(client.calls).toEqual([]);
  client.server("Unknown");
  await eventually(() => client.calls.length === 2);
  expect(client.calls).toEqual(["close", "connect"]);
  client.server("Standalone");
  await Bun.sleep(1_200);
  expect(client.calls).toEqual(["close", "connect"]);
  await watchdog.stop();
});

test("while the server stays down it tries again once per limit, not on every tick, and stop ends it", async () => {
  const client = fakeClient(() => false);
  const tries = () => client.calls.filter((c) => c === "connect").length;
  const watchdog = recycleWhenStuck(client, 100, 10);
  const start = Date.now();
  client.server("Unknown");
  await eventually(() => tries() >= 3);
  expect(tries()).toBeGreaterThanOrEqual(3);
  // Once per 100 ms at most: on every 10 ms tick it would be ten times as many.
  expect(tries()).toBeLessThanOrEqual(Math.floor((Date.now() - start) / 100) + 1);
  await watchdog.stop();
  const after = client.calls.length;
  await Bun.sleep(200);
  expect(client.calls.length).toBe(after);
});
