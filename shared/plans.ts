import { z } from "zod";

/** One plan of the catalog (decisions.md, Plans and billing). `null` means unlimited. */
export const Plan = z.object({
  monthlyRequests: z.int().positive().nullable(),
  perMinute: z.object({ prod: z.int().positive().nullable(), stage: z.int().positive().nullable() }),
  snapshot: z.object({ everySeconds: z.int().min(0), keptPerSlot: z.int().min(1), retentionDays: z.int().min(1) }),
  authBridgeInProd: z.boolean(),
  /** Active slots one account may hold (decisions.md, Slots); archived and deleted ones do not count. */
  maxActiveSlots: z.int().min(1).default(32),
});
export type Plan = z.infer<typeof Plan>;

export const PlanName = z.enum(["free", "starter", "growth", "pro", "self_hosted"]);
export type PlanName = z.infer<typeof PlanName>;

export const PlanCatalog = z.record(PlanName, Plan);
export type PlanCatalog = z.infer<typeof PlanCatalog>;

export const defaultPlans: PlanCatalog = {
  free: { monthlyRequests: 100_000, perMinute: { prod: 600, stage: 300 }, snapshot: { everySeconds: 1800, keptPerSlot: 24, retentionDays: 1 }, authBridgeInProd: false, maxActiveSlots: 32 },
  starter: { monthlyRequests: 1_000_000, perMinute: { prod: 3_000, stage: 600 }, snapshot: { everySeconds: 600, keptPerSlot: 100, retentionDays: 7 }, authBridgeInProd: true, maxActiveSlots: 32 },
  growth: { monthlyRequests: 5_000_000, perMinute: { prod: 12_000, stage: 1_200 }, snapshot: { everySeconds: 300, keptPerSlot: 300, retentionDays: 30 }, authBridgeInProd: true, maxActiveSlots: 32 },
  pro: { monthlyRequests: 20_000_000, perMinute: { prod: 30_000, stage: 3_000 }, snapshot: { everySeconds: 60, keptPerSlot: 1_000, retentionDays: 90 }, authBridgeInProd: true, maxActiveSlots: 32 },
  self_hosted: { monthlyRequests: null, perMinute: { prod: null, stage: null }, snapshot: { everySeconds: 0, keptPerSlot: 100, retentionDays: 30 }, authBridgeInProd: true, maxActiveSlots: 32 },
};

/** The catalog from `SAVEPOINT_PLANS` (a JSON file) or the defaults; a bad file stops start-up. */
export async function loadPlans(path: string | undefined): Promise<PlanCatalog> {
  if (!path) return defaultPlans;
  const parsed = PlanCatalog.safeParse(await Bun.file(path).json());
  if (!parsed.success) throw new Error(`SAVEPOINT_PLANS: ${path} is not a valid plan catalog: ${parsed.error.message}`);
  return parsed.data;
}
