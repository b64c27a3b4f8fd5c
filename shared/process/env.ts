import { z } from "zod";
import { PlanName } from "../contract/plans.ts";
import { notPlaceholder } from "./placeholder.ts";

const optional = z.string().trim().min(1).optional();

/**
 * The environment variables listed in docs/configuration.md. Read and checked once at start; a bad
 * value names its variable.
 */
export const Env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    // Every interface by default: in a container, loopback alone is unreachable from outside.
    HOST: z
      .string()
      .trim()
      .regex(/^[^\s/]+$/, "must be a hostname or IP address, such as 0.0.0.0 or 127.0.0.1")
      .default("0.0.0.0"),
    SAVEPOINT_DATA_DIR: z.string().default("./data"),
    /** Scheduled backups of the embedded deployment's data folder (docs/backups.md): where, how often, how many kept. */
    SAVEPOINT_BACKUP_DIR: optional,
    SAVEPOINT_BACKUP_INTERVAL_MINUTES: z.coerce
      .number()
      .min(0.01, "must be at least 0.01 (minutes; fractions are allowed)")
      .default(60),
    SAVEPOINT_BACKUP_KEEP: z.coerce.number().int().min(1).default(24),
    NATS_URL: optional,
    MONGODB_URL: optional,
    MONGODB_DB: z.string().default("savepoint"),
    SAVEPOINT_ADMIN_TOKEN: notPlaceholder(z.string().min(16, "must be at least 16 characters")).optional(),
    SAVEPOINT_PLANS: optional,
    /** The plan of a workspace created without one; unset: `self_hosted`, or `free` when Stripe billing is on. */
    SAVEPOINT_DEFAULT_PLAN: PlanName.optional(),
    SAVEPOINT_BUS_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
    /** Keyed records one scope (an account, or a client address) may add per UTC day (docs/api-rules.md#idempotent-retries). */
    SAVEPOINT_IDEMPOTENCY_DAILY_CAP: z.coerce.number().int().min(1).default(10_000),
    /** How long a runtime request waits for billing to grant a limit's units before its gateway copy counts alone. */
    SAVEPOINT_CLAIM_DEADLINE_MS: z.coerce.number().int().min(1).default(250),
    /** How often each gateway copy adds its dashboard counts to the shared series (docs/api-rules.md#overview). */
    SAVEPOINT_TRAFFIC_FLUSH_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Cleanup jobs: deliveries before a job is dead-lettered, the delays between them, and how long a delivery may go unacknowledged. */
    SAVEPOINT_JOB_MAX_DELIVER: z.coerce.number().int().min(1).max(100).default(8),
    SAVEPOINT_JOB_BACKOFF_MS: z
      .string()
      .default("1000,5000,30000,120000")
      .transform((v) => v.split(",").map((s) => Number(s.trim())))
      .refine(
        (list) => list.length > 0 && list.every((n) => Number.isInteger(n) && n >= 0),
        "must be comma-separated milliseconds, such as 1000,5000,30000",
      ),
    SAVEPOINT_JOB_ACK_WAIT_MS: z.coerce.number().int().min(100).default(30_000),
    /** Replicas of each JetStream work-queue stream: 3 on a 3-node cluster, so a job outlives a node. */
    SAVEPOINT_NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
    /** A service's own port for /metrics, /healthz and /readyz (distributed deployment); unset: none. */
    SAVEPOINT_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /**
     * `host:port` of a second gateway listener that alone serves the admin API and /metrics (the public
     * PORT then answers 404 for them); unset: both on PORT.
     */
    SAVEPOINT_ADMIN_ADDRESS: z
      .string()
      .trim()
      .regex(/^(?:\[[0-9A-Fa-f:.]+\]|[^\s/:[\]]+):\d{1,5}$/, "must be host:port, such as 127.0.0.1:9090 or [::1]:9090")
      .transform((v) => {
        const at = v.lastIndexOf(":");
        return { host: v.slice(0, at).replace(/^\[(.*)\]$/, "$1"), port: Number(v.slice(at + 1)) };
      })
      .refine((a) => a.port <= 65535, "the port must be 0 to 65535")
      .optional(),
    /** Failed admin tokens one client IP may send in a minute before its admin requests are 429. */
    SAVEPOINT_ADMIN_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(10),
    /** Bytes of answers one gateway copy holds at once (docs/plans-and-limits.md): past it a large answer is 503 with Retry-After. */
    SAVEPOINT_ANSWER_BYTES_IN_FLIGHT: z.coerce.number().int().min(1_048_576).default(67_108_864),
    /** Of them, bytes one account's answers hold at once in a copy: past it, 429 with `scope: "account"`. */
    SAVEPOINT_ACCOUNT_ANSWER_BYTES_IN_FLIGHT: z.coerce.number().int().min(1_048_576).default(4_194_304),
    /** On SIGTERM the gateway reports not ready and closes connections for this long before it stops listening. */
    SAVEPOINT_DRAIN_MS: z.coerce.number().int().min(0).default(5_000),
    /** How long a process waits at start for its bus and store to answer before it gives up. */
    SAVEPOINT_START_TIMEOUT_MS: z.coerce.number().int().min(0).default(60_000),
    /** Read by the logger itself (shared/observe/log.ts); checked here so a typo stops start-up. */
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
    /** PEM certificate (with its chain) and private key: set both and the gateway serves HTTPS itself (docs/tls.md). */
    SAVEPOINT_TLS_CERT: optional,
    SAVEPOINT_TLS_KEY: optional,
    /** Request log lines (docs/operating.md#logs): every request, failed ones only, or none. */
    SAVEPOINT_REQUEST_LOG: z.enum(["all", "errors", "off"]).default("all"),
    /** Peers allowed to name the client in X-Forwarded-For, comma-separated IP addresses. */
    SAVEPOINT_TRUSTED_PROXIES: z
      .string()
      .default("")
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    /** Key of the transfer codes' HMAC; every transfer-service copy needs the same one. */
    SAVEPOINT_TRANSFER_SECRET: notPlaceholder(z.string().min(32, "must be at least 32 characters")).optional(),
    /** Key of identity links' hashes (provider and subject); every auth-bridge copy needs the same one. */
    SAVEPOINT_LINK_SECRET: notPlaceholder(z.string().min(32, "must be at least 32 characters")).optional(),
    /** How soon a token signed by an unknown key may make the auth bridge fetch a provider's key set again. */
    SAVEPOINT_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
    /** Days the admin audit log keeps an entry; older days are pruned whole (docs/console.md). */
    SAVEPOINT_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    /** Stripe endpoint secret (`whsec_...`); unset, the webhook answers 503. */
    STRIPE_WEBHOOK_SECRET: optional,
    /** `price_id=plan` pairs, comma-separated: which plan each Stripe price buys. */
    STRIPE_PRICE_PLANS: z.string().default(""),
  })
  .refine((env) => !env.SAVEPOINT_TLS_CERT === !env.SAVEPOINT_TLS_KEY, {
    path: ["SAVEPOINT_TLS_CERT"],
    message: "set SAVEPOINT_TLS_CERT and SAVEPOINT_TLS_KEY together, or neither",
  });
export type Env = z.infer<typeof Env>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ""));
  const parsed = Env.safeParse(cleaned);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  throw new Error(`invalid configuration:\n${lines.join("\n")}`);
}
