import type { Socket } from "bun";

/** Bytes on their way to one socket of a test proxy: what the socket did not take yet waits for its drain. */
export type Outbound = { socket?: Socket<unknown>; held: Uint8Array[] };

/** Writes what is held, in order, until the socket takes no more (its drain event calls this again). */
export function drainHeld(to: Outbound): void {
  while (to.socket && to.held.length > 0) {
    const next = to.held[0]!;
    const written = to.socket.write(next);
    if (written < next.byteLength) {
      to.held[0] = next.subarray(Math.max(0, written));
      return;
    }
    to.held.shift();
  }
}
