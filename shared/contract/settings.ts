import { z } from "zod";
import { TransferCodeTtl } from "./identity.ts";

/** Per-project rate limits operators may change (docs/api-rules.md#limits-and-plans; docs/api-rules.md#transfer-codes). */
export const RateLimits = z
  .object({
    accountCreationsPerIpPerMinute: z.int().min(1),
    authExchangesPerIpPerMinute: z.int().min(1),
    /** Counted per account, across all its sessions (docs/api-rules.md#limits-and-plans). */
    sessionRequestsPerMinute: z.int().min(1),
    transferFailuresPerKeyPerMinute: z.int().min(1),
    /** Requests of one account in flight at once in each gateway copy. */
    accountConcurrentRequests: z.int().min(1),
    /** New saves (route 18) per client IP; settings stored before it existed get the default. */
    saveCreationsPerIpPerMinute: z.int().min(1).default(30),
  })
  .meta({ id: "RateLimits" });
export type RateLimits = z.infer<typeof RateLimits>;

/** What a browser sends in `Origin`: scheme://host[:port], lowercase, no path. */
const originPattern = /^[a-z][a-z0-9+.-]*:\/\/(\[[0-9a-f:.]+\]|[a-z0-9-]+(\.[a-z0-9-]+)*)(:\d{1,5})?$/;
/** A browser leaves an http(s) default port out of `Origin`: an entry with one would never match. */
const noDefaultPort = (s: string) => !/^(http:\/\/.*:80|https:\/\/.*:443)$/.test(s);
export const Origin = z
  .string()
  .max(300)
  .regex(originPattern, {
    message: "Expected an origin as a browser sends it: scheme://host[:port], lowercase, no path or trailing slash.",
    abort: true,
  })
  .refine(noDefaultPort, "Leave the default port out: a browser never sends it.")
  .meta({ example: "https://game.example.com" });

/** Browser origins allowed per environment (docs/using-the-api.md#browser-games-cors); an environment left out allows any. */
export const AllowedOrigins = z
  .strictObject({ stage: z.array(Origin).max(100).optional(), prod: z.array(Origin).max(100).optional() })
  .meta({ id: "AllowedOrigins" });
export type AllowedOrigins = z.infer<typeof AllowedOrigins>;

/**
 * Days a session may go unused before it expires (docs/using-the-api.md#sessions-and-devices). At least one day: far
 * longer than the gap between a used session's recorded uses.
 */
export const SessionIdleDays = z.int().min(1).max(3650);

/** A project's settings. `transferCodeTtlSeconds` is the longest life a transfer code may ask for. */
export const ProjectSettings = z
  .object({
    transferCodeTtlSeconds: z.int().min(TransferCodeTtl.minSeconds).max(TransferCodeTtl.maxSeconds),
    rateLimits: RateLimits,
    /** Stored settings from before this field have none: every origin. */
    allowedOrigins: AllowedOrigins.default({}),
    sessionIdleDays: SessionIdleDays.default(180),
  })
  .meta({ id: "ProjectSettings" });
export type ProjectSettings = z.infer<typeof ProjectSettings>;

export const defaultProjectSettings: ProjectSettings = {
  transferCodeTtlSeconds: TransferCodeTtl.maxSeconds,
  rateLimits: {
    accountCreationsPerIpPerMinute: 30,
    authExchangesPerIpPerMinute: 30,
    sessionRequestsPerMinute: 120,
    transferFailuresPerKeyPerMinute: 60,
    accountConcurrentRequests: 8,
    saveCreationsPerIpPerMinute: 30,
  },
  allowedOrigins: {},
  sessionIdleDays: 180,
};

export const ProjectSettingsPatch = z
  .strictObject({
    transferCodeTtlSeconds: ProjectSettings.shape.transferCodeTtlSeconds.optional(),
    rateLimits: RateLimits.partial().strict().optional(),
    allowedOrigins: AllowedOrigins.optional(),
    sessionIdleDays: SessionIdleDays.optional(),
  })
  .meta({ id: "ProjectSettingsPatch" });
