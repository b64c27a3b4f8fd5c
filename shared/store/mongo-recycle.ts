/** What the watchdog needs of a MongoClient: its server events, and closing and connecting again. */
export interface Recyclable {
  on(event: "serverDescriptionChanged", listener: (e: { newDescription: { type: string } }) => void): unknown;
  close(): Promise<void>;
  connect(): Promise<unknown>;
}

/**
 * Reconnects a client whose server has looked down for longer than `afterMs`. The driver's monitor
 * can stall after a restart of the server (seen with FerretDB under Bun: one copy answered 503 for
 * 30 s while another, restarted the same way, recovered in under a second); a fresh topology finds
 * the server at once. Requests meanwhile fail as they did (503). Returns `stop`, which waits for a
 * reconnect in progress, so that nothing reopens the client after its store is closed.
 */
export function recycleWhenStuck(client: Recyclable, afterMs = 5_000, everyMs = 1_000): { stop(): Promise<void> } {
  let downSince: number | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  client.on("serverDescriptionChanged", (e) => {
    if (e.newDescription.type === "Unknown") downSince ??= Date.now();
    else downSince = undefined;
  });
  const recycle = async () => {
    try {
      await client.close();
      if (!stopped) await client.connect();
    } catch {
      // Still down: the next tick tries again.
    } finally {
      running = undefined;
    }
  };
  const timer = setInterval(() => {
    if (stopped || running || downSince === undefined || Date.now() - downSince < afterMs) return;
    // Measured again from now: a connect that fails leaves the server down, and the next try waits.
    downSince = Date.now();
    running = recycle();
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
