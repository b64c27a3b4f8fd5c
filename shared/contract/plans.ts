import { z } from "zod";

const MiB = 1_048_576;

/**
 * What a plan lets one account, one environment's accounts together and one environment's saves store,
 * in bytes (docs/plans-and-limits.md#storage-budgets). At least 1 MiB, so a new account with a full first slot always
 * fits its own. `bytesPerEnvironmentAccounts` omitted (a file written before it): the plan's default.
 */
const StorageBudgetFile = z.object({
  bytesPerAccount: z.int().min(MiB),
  bytesPerEnvironmentAccounts: z.int().min(MiB).optional(),
  bytesPerEnvironmentSaves: z.int().min(MiB),
});
export type StorageBudget = Required<z.infer<typeof StorageBudgetFile>>;

/** One plan of the catalog (docs/api-rules.md#limits-and-plans). `null` means unlimited. */
export const Plan = z.object({
  monthlyRequests: z.int().positive().nullable(),
  perMinute: z.object({ prod: z.int().positive().nullable(), stage: z.int().positive().nullable() }),
  snapshot: z.object({ everySeconds: z.int().min(0), keptPerSlot: z.int().min(1), retentionDays: z.int().min(1) }),
  authBridgeInProd: z.boolean(),
  /** Active slots one account may hold (docs/api-rules.md#slots); archived and deleted ones do not count. */
  maxActiveSlots: z.int().min(1).default(32),
  /** Omitted in a catalog file: the default plan of the same name's budgets (PlanCatalog). */
  storage: StorageBudgetFile.optional(),
});
export type Plan = z.infer<typeof Plan> & { storage: StorageBudget };

export const PlanName = z.enum(["free", "starter", "growth", "pro", "self_hosted"]);
export type PlanName = z.infer<typeof PlanName>;

export type PlanCatalog = Record<PlanName, Plan>;

const GiB = 1024 * MiB;
// An environment's accounts: the room of a few thousand full accounts (docs/plans-and-limits.md#storage-budgets).
const storageDefaults: Record<PlanName, StorageBudget> = {
  free: { bytesPerAccount: 4 * MiB, bytesPerEnvironmentAccounts: GiB, bytesPerEnvironmentSaves: 256 * MiB },
  starter: { bytesPerAccount: 16 * MiB, bytesPerEnvironmentAccounts: 16 * GiB, bytesPerEnvironmentSaves: 1024 * MiB },
  growth: { bytesPerAccount: 32 * MiB, bytesPerEnvironmentAccounts: 64 * GiB, bytesPerEnvironmentSaves: 4096 * MiB },
  pro: { bytesPerAccount: 64 * MiB, bytesPerEnvironmentAccounts: 256 * GiB, bytesPerEnvironmentSaves: 10_240 * MiB },
  self_hosted: {
    bytesPerAccount: 64 * MiB,
    bytesPerEnvironmentAccounts: 256 * GiB,
    bytesPerEnvironmentSaves: 10_240 * MiB,
  },
};

/** A catalog file written before storage budgets loads unchanged: each plan gets its default budgets. */
export const PlanCatalog = z.record(PlanName, Plan).transform((plans): PlanCatalog => {
  const named = Object.entries(plans).map(([name, plan]) => {
    const defaults = storageDefaults[name as PlanName];
    const accounts = plan.storage?.bytesPerEnvironmentAccounts ?? defaults.bytesPerEnvironmentAccounts;
    const storage = plan.storage ? { ...plan.storage, bytesPerEnvironmentAccounts: accounts } : defaults;
    return [name, { ...plan, storage }];
  });
  return Object.fromEntries(named) as PlanCatalog;
});

// Parsed, so each plan gets its default budgets like a catalog file that omits them.
export const defaultPlans: PlanCatalog = PlanCatalog.parse({
  free: {
    monthlyRequests: 100_000,
    perMinute: { prod: 600, stage: 300 },
    snapshot: { everySeconds: 1800, keptPerSlot: 24, retentionDays: 1 },
    authBridgeInProd: false,
    maxActiveSlots: 32,
  },
  starter: {
    monthlyRequests: 1_000_000,
    perMinute: { prod: 3_000, stage: 600 },
    snapshot: { everySeconds: 600, keptPerSlot: 100, retentionDays: 7 },
    authBridgeInProd: true,
    maxActiveSlots: 32,
  },
  growth: {
    monthlyRequests: 5_000_000,
    perMinute: { prod: 12_000, stage: 1_200 },
    snapshot: { everySeconds: 300, keptPerSlot: 300, retentionDays: 30 },
    authBridgeInProd: true,
    maxActiveSlots: 32,
  },
  pro: {
    monthlyRequests: 20_000_000,
    perMinute: { prod: 30_000, stage: 3_000 },
    snapshot: { everySeconds: 60, keptPerSlot: 1_000, retentionDays: 90 },
    authBridgeInProd: true,
    maxActiveSlots: 32,
  },
  self_hosted: {
    monthlyRequests: null,
    perMinute: { prod: null, stage: null },
    snapshot: { everySeconds: 0, keptPerSlot: 100, retentionDays: 30 },
    authBridgeInProd: true,
    maxActiveSlots: 32,
  },
});

/**
 * The plan of a workspace created without one: a studio running its own Savepoint gets `self_hosted`
 * (no quotas); an operator who resells it (Stripe billing on) starts studios on `free`.
 */
export const defaultPlanOf = (env: { SAVEPOINT_DEFAULT_PLAN?: PlanName; STRIPE_WEBHOOK_SECRET?: string }): PlanName =>
  env.SAVEPOINT_DEFAULT_PLAN ?? (env.STRIPE_WEBHOOK_SECRET ? "free" : "self_hosted");

/** The catalog from `SAVEPOINT_PLANS` (a JSON file) or the defaults; a bad file stops start-up. */
export async function loadPlans(path: string | undefined): Promise<PlanCatalog> {
  if (!path) return defaultPlans;
  const parsed = PlanCatalog.safeParse(await Bun.file(path).json());
  if (parsed.success) return parsed.data;
  // One line naming each field, as infra/plans/README.md promises: not the validator's dump.
  const fields = parsed.error.issues.map((i) => `${i.path.join(".") || "(the file)"}: ${i.message}`).join("; ");
  throw new Error(`SAVEPOINT_PLANS: ${path} is not a valid plan catalog: ${fields}`);
}
