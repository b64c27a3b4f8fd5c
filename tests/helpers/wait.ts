/** Reads until `done` holds or `timeoutMs` has passed, and returns the last value either way: the caller asserts on it. */
export async function readUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await Bun.sleep(100);
  }
}

/** Waits for `check` to hold, looking every 50 ms for at most `timeoutMs`; past that, throws naming `what`. */
export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  for (let i = 0; i * 50 < timeoutMs; i++) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}
