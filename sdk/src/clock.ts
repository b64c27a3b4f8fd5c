/** Time as the SDK sees it; tests pass `manualClock()` to drive the sync policy without waiting. */
export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export const sleep = (clock: Clock, ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));

export interface ManualClock extends Clock {
  /** Moves time forward, running each timer that falls due, in order, and letting its work settle. */
  advance(ms: number): Promise<void>;
  /** Timers not yet run. */
  pending(): number;
}

/** A clock that moves only when told to. */
export function manualClock(start = Date.parse("2030-01-01T00:00:00Z")): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; run: () => void }>();
  const settle = async () => {
    // Timer callbacks start async work (requests to a real server): give it turns of the event loop.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  };
  return {
    now: () => now,
    setTimeout(run, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), run });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    pending: () => timers.size,
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= end)
          .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].run();
        await settle();
      }
      now = end;
      await settle();
    },
  };
}
