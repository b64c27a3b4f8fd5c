/**
 * A gateway's stop (SIGTERM): for `ms` it answers `/readyz` with 503 and closes each connection after
 * its answer, so balancers take it out and keep-alive clients reconnect elsewhere; only then does it
 * stop listening and wait for the requests still in flight. No client's reused connection is cut.
 */
export function createDrain() {
  const state = { draining: false };
  return {
    state,
    async begin(ms: number) {
      state.draining = true;
      await Bun.sleep(ms);
    },
  };
}
export type Drain = ReturnType<typeof createDrain>;
