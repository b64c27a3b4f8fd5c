import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "../../shared/env.ts";
import { randomBase62 } from "../../shared/ids.ts";

/**
 * The transfer codes' HMAC key: SAVEPOINT_TRANSFER_SECRET when set. The embedded deployment makes one
 * on its first start and keeps it beside its data (owner-only), so codes survive a restart. Copies of
 * a distributed transfer service must share one key, so there it is required.
 */
export function transferSecret(env: Env): string {
  if (env.SAVEPOINT_TRANSFER_SECRET) return env.SAVEPOINT_TRANSFER_SECRET;
  if (env.NATS_URL) throw new Error("SAVEPOINT_TRANSFER_SECRET: required when NATS_URL is set (every transfer-service copy must use the same key)");
  const file = join(env.SAVEPOINT_DATA_DIR, "transfer-secret");
  if (!existsSync(file)) {
    mkdirSync(env.SAVEPOINT_DATA_DIR, { recursive: true });
    writeFileSync(file, randomBase62(43), { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
  }
  return readFileSync(file, "utf8").trim();
}
