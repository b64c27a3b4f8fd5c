import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { testShard } from "./shard.ts";

/** The kernel's range for the local ends of outgoing connections (its default, where it cannot be read). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {}
  return [32768, 60999];
}

const handedOut = new Set<number>();

/**
 * The part of the range this process hands out from: `npm test` runs shards of the suite at once
 * (SAVEPOINT_TEST_SHARD `i/n`, tests/run.ts), and two of them must never pick the same port.
 */
function shareOf(floor: number, low: number): [number, number] {
  const { index, count } = testShard();
  const size = Math.floor((low - floor) / count);
  return [floor + index * size, floor + (index + 1) * size];
}

/**
 * A free TCP port on loopback for a process to listen on, below the kernel's ephemeral range: a port
 * the kernel hands out (port 0) is also what it gives the next outgoing connection (to NATS, to the
 * store), which can take it before the process binds it ("Is port in use?"). Never the same port twice
 * in one test run.
 */
export function freePort(): number {
  const [low] = ephemeralRange();
  const [from, to] = shareOf(Math.min(10_000, low - 1_000), low);
  for (let tries = 0; tries < 1_000; tries++) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (handedOut.has(port)) continue;
    try {
      Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response() }).stop(true);
    } catch {
      continue;
    }
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port from ${from} to ${to}`);
}

/** Resolves once something accepts TCP connections on the port; rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs = 30_000, what = "service"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: "127.0.0.1" }, () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await Bun.sleep(50);
  }
  throw new Error(`${what} did not open port ${port} within ${timeoutMs} ms`);
}
