/**
 * Waits, when needed, until the current fixed window (of `windowSeconds`, aligned to the epoch as the
 * services align theirs) has at least `neededSeconds` left: a test that fills a window must not see
 * it end halfway.
 */
export async function awayFromWindowEnd(windowSeconds: number, neededSeconds = 10): Promise<void> {
  const left = windowSeconds * 1000 - (Date.now() % (windowSeconds * 1000));
  if (left < neededSeconds * 1000) await Bun.sleep(left + 50);
}
