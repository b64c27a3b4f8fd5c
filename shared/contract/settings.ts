import { z } from "zod";
import { TransferCodeTtl } from "./identity.ts";

/** Per-project limits operators may change (decisions.md, Plans and billing; Credentials). */
export const RateLimits = z
  .object({
    accountCreationsPerIpPerMinute: z.int().min(1),
    authExchangesPerIpPerMinute: z.int().min(1),
    sessionRequestsPerMinute: z.int().min(1),
    transferFailuresPerKeyPerMinute: z.int().min(1),
  })
  .meta({ id: "RateLimits" });
export type RateLimits = z.infer<typeof RateLimits>;

/** A project's settings. `transferCodeTtlSeconds` is the longest life a transfer code may ask for. */
export const ProjectSettings = z
  .object({
    transferCodeTtlSeconds: z.int().min(TransferCodeTtl.minSeconds).max(TransferCodeTtl.maxSeconds),
    rateLimits: RateLimits,
  })
  .meta({ id: "ProjectSettings" });
export type ProjectSettings = z.infer<typeof ProjectSettings>;

export const defaultProjectSettings: ProjectSettings = {
  transferCodeTtlSeconds: TransferCodeTtl.maxSeconds,
  rateLimits: { accountCreationsPerIpPerMinute: 30, authExchangesPerIpPerMinute: 30, sessionRequestsPerMinute: 120, transferFailuresPerKeyPerMinute: 60 },
};

export const ProjectSettingsPatch = z
  .strictObject({ transferCodeTtlSeconds: ProjectSettings.shape.transferCodeTtlSeconds.optional(), rateLimits: RateLimits.partial().strict().optional() })
  .meta({ id: "ProjectSettingsPatch" });
