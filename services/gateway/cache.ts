/**
 * A small TTL map with a size bound; the oldest entries go first when it is full. Every invalidation
 * bumps `generation`: an answer asked for before one (read `generation` first) is not stored, so a
 * lookup that overlapped a revocation cannot bring the revoked entry back.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private gen = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
    private readonly clock: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires < this.clock()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  /** Counts invalidations; pass the value read before the lookup to `set`. */
  get generation(): number {
    return this.gen;
  }

  /**
   * Stores `value` unless the cache was invalidated since `asOf` (the generation before the lookup);
   * `until` (epoch ms) ends its life sooner than the TTL would, and one already past is not stored.
   */
  set(key: string, value: V, asOf: number, until = Infinity): void {
    if (asOf !== this.gen) return;
    const now = this.clock();
    const expires = Math.min(now + this.ttlMs, until);
    if (expires <= now) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expires });
  }

  deleteWhere(predicate: (value: V) => boolean): void {
    this.gen++;
    for (const [key, { value }] of this.entries) if (predicate(value)) this.entries.delete(key);
  }

  clear(): void {
    this.gen++;
    this.entries.clear();
  }
}
