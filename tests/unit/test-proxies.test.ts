import { expect, test } from "bun:test";
import { startCommandProxy } from "../helpers/command-proxy.ts";
import { freePort } from "../helpers/ports.ts";
import { startStallProxy } from "../helpers/stall-proxy.ts";

// The tests' TCP proxies (tests/helpers) in front of an upstream that is down: a client is closed, as a
// real proxy closes it, and the refused connection is no error of the test run.
for (const [name, start] of [
  ["stall proxy", (upstream: string) => startStallProxy(`nats://${upstream}`)],
  ["command proxy", (upstream: string) => startCommandProxy(`mongodb://${upstream}/`)],
] as const) {
  test(`${name}: a client whose upstream cannot be reached is closed`, async () => {
    const proxy = await start(`127.0.0.1:${freePort()}`);
    try {
      const seen: string[] = [];
      let closed!: () => void;
      const closing = new Promise<void>((resolve) => (closed = resolve));
      const client = await Bun.connect({
        hostname: "127.0.0.1",
        port: Number(new URL(proxy.url).port),
        socket: {
          data: (_s, bytes) => void seen.push(`data ${bytes.byteLength}`),
          close: () => {
            seen.push("closed");
            closed();
          },
        },
      });
      client.write("hello");
      await closing;
      expect(seen).toEqual(["closed"]);
    } finally {
      proxy.stop();
    }
  });
}
