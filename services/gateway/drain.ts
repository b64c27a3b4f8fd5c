import type { Logger } from "../../shared/observe/log.ts";

/**
 * A gateway's stop (SIGTERM): for `ms` it answers `/readyz` with 503 and closes each connection after
 * its answer, so balancers take it out and keep-alive clients reconnect elsewhere; only then does it
 * stop listening and wait for the requests still in flight. No client's reused connection is cut.
 *
 * Ctrl-C (SIGINT) is a person at a terminal, with no balancer to wait for: given `inFlight`, the drain
 * ends as soon as no request is in flight (docs/operating.md#lifecycle).
 */
export function createDrain() {
  const state = { draining: false };
  return {
    state,
    /** Resolves with why the drain ended. */
    async begin(ms: number, inFlight?: () => number): Promise<"drain time over" | "nothing in flight"> {
      state.draining = true;
      const end = Date.now() + ms;
      if (!inFlight) {
        await Bun.sleep(ms);
        return "drain time over";
      }
      while (inFlight() > 0 && Date.now() < end) await Bun.sleep(Math.min(20, end - Date.now()));
      return inFlight() === 0 ? "nothing in flight" : "drain time over";
    },
  };
}
export type Drain = ReturnType<typeof createDrain>;

/** The first step of a gateway's stop: the drain, for the whole `ms` on SIGTERM, until nothing is in flight on SIGINT. */
export const drainOnStop =
  (drain: Drain, ms: number, log: Logger, inFlight: () => number) => async (signal: string) => {
    const reason = await drain.begin(ms, signal === "SIGINT" ? inFlight : undefined);
    log.info("drained", { reason });
  };

/** The requests a listener (an Elysia app after `listen`) is answering now. */
export const pendingRequests = (...apps: ({ server: { pendingRequests: number } | null } | undefined | "" | false)[]) =>
  apps.reduce((n, app) => n + (app ? (app.server?.pendingRequests ?? 0) : 0), 0);
