import type { WorkOptions } from "./port.ts";

/** The delay before redelivery after `deliveries` failed deliveries. */
export const backoffAfter = (options: WorkOptions, deliveries: number) =>
  options.backoffMs[Math.min(deliveries, options.backoffMs.length) - 1] ?? 0;

export const failureText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);
