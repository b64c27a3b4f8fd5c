import type { Clock } from "./clock.ts";

/**
 * The offset of the server's clock from the device's, from one answer's `Date` header. The header has
 * whole seconds, so the server answered somewhere in [D, D + 1000): its middle is set against the middle
 * of the round trip. Undefined when the header is missing or unreadable (a proxy's answer, a browser that
 * was not allowed to read it).
 */
export function offsetFromDate(
  date: string | null | undefined,
  sentAt: number,
  receivedAt: number,
): number | undefined {
  const at = date ? Date.parse(date) : Number.NaN;
  if (!Number.isFinite(at) || receivedAt < sentAt) return undefined;
  return at + 500 - (sentAt + receivedAt) / 2;
}

/** A change smaller than this is the Date header's grain, not a new clock: not worth a storage write. */
const persistStepMs = 2_000;
/** A new answer this much less certain than the kept one still replaces it: the offset follows a drifting clock. */
const sharperByMs = 250;

/**
 * The server's time as this device estimates it: the device clock plus the offset of the sharpest recent answer.
 * Save times compared with the server's `updatedAt` (the `latest` merge rule) use it, so a device whose
 * clock is wrong by a day neither wins nor loses every merge (README, Conflicts).
 */
export class ServerClock {
  private offset = 0;
  /** How far the offset may be from the truth: half its round trip plus the Date's half second (Infinity: a guess). */
  private uncertainty = Number.POSITIVE_INFINITY;
  private persisted = 0;
  constructor(
    private readonly clock: Clock,
    private readonly persist: (offsetMs: number) => Promise<void> = async () => {},
  ) {}

  /** The offset kept from an earlier run, so saves made before the first answer are on the server's clock too. */
  restore(offsetMs: number | undefined): void {
    if (typeof offsetMs === "number" && Number.isFinite(offsetMs)) this.offset = this.persisted = offsetMs;
  }
  now(): number {
    return this.clock.now() + this.offset;
  }
  get offsetMs(): number {
    return this.offset;
  }
  /** One answer: its Date header, and the device's time when the request left and when the answer came. */
  observe(date: string | null, sentAt: number, receivedAt: number): void {
    const offset = offsetFromDate(date, sentAt, receivedAt);
    if (offset === undefined) return;
    // A slow answer (a loaded machine, a congested network) knows the server's time less well: it does not
    // replace a sharper offset it agrees with. One that disagrees beyond both error bars means the device
    // clock was changed: it is taken at once.
    const uncertainty = (receivedAt - sentAt) / 2 + 500;
    const agrees = Math.abs(offset - this.offset) <= uncertainty + this.uncertainty;
    if (uncertainty > this.uncertainty + sharperByMs && agrees) return;
    this.offset = offset;
    this.uncertainty = uncertainty;
    if (Math.abs(offset - this.persisted) < persistStepMs) return;
    this.persisted = offset;
    this.persist(offset).catch(() => {});
  }
}
