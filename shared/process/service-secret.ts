import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../store/port.ts";
import { randomBase62 } from "../util/ids.ts";
import { makePrivateDir } from "../util/private-files.ts";
import type { Env } from "./env.ts";
import { checkSecretFingerprint } from "./secret-fingerprint.ts";

type SecretVariable = "SAVEPOINT_TRANSFER_SECRET" | "SAVEPOINT_LINK_SECRET";

/**
 * An HMAC key a service hashes credentials with: the variable's value when set. The embedded
 * deployment makes one on its first start and keeps it beside its data (owner-only, file named after
 * the variable), so what it hashed survives a restart. Copies of a distributed service must share one
 * key, so there the variable is required.
 */
export function serviceSecret(env: Env, variable: SecretVariable): string {
  const given = env[variable];
  if (given) return given;
  if (env.NATS_URL)
    throw new Error(`${variable}: required when NATS_URL is set (every copy of the service must use the same key)`);
  const file = join(env.SAVEPOINT_DATA_DIR, variable.toLowerCase());
  if (!existsSync(file)) {
    makePrivateDir(env.SAVEPOINT_DATA_DIR);
    writeFileSync(file, randomBase62(43), { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
  }
  return readFileSync(file, "utf8").trim();
}

/** `serviceSecret`, refused when it is not the one `store`'s data was written with (see secret-fingerprint.ts). */
export async function keptServiceSecret(store: Store, env: Env, variable: SecretVariable): Promise<string> {
  const secret = serviceSecret(env, variable);
  await checkSecretFingerprint(store, variable, secret);
  return secret;
}
