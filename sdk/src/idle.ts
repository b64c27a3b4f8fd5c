import type { Status } from "./events.ts";

/** Waits until nothing is pending or the engine is offline, stopped or in error. */
export async function idleStatus(status: () => Status): Promise<Status> {
  for (;;) {
    const s = status();
    if (s.pending.length === 0 || s.state === "offline" || s.state === "error" || s.state === "conflict" || s.stopped)
      return s;
    await new Promise((r) => setTimeout(r, 5));
  }
}
