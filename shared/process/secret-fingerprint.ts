import { createHmac } from "node:crypto";
import { DuplicateKeyError, type Store } from "../store/port.ts";

type FingerprintDoc = { _id: string; fingerprint: string; recordedAt: string };

/** What a changed secret breaks, for the refusal's message. */
const breaks = {
  SAVEPOINT_LINK_SECRET: [
    "this store's identity links were written with",
    "changing it orphans every link (players would sign in to new, empty accounts)",
  ],
  SAVEPOINT_TRANSFER_SECRET: [
    "this store's transfer codes were written with",
    "changing it voids every transfer code not yet consumed",
  ],
} as const;

/**
 * A short fingerprint of `secret`: an HMAC of a constant under it, so the stored value tells one
 * secret from another but reveals nothing of it.
 */
export const secretFingerprint = (secret: string) =>
  createHmac("sha256", secret).update("savepoint secret fingerprint v1").digest("hex").slice(0, 16);

/**
 * Records the secret's fingerprint beside the data on a first start, and on every later start refuses
 * a different secret: credentials hashed with the old key would silently match nothing
 * (docs/distributed.md).
 */
export async function checkSecretFingerprint(
  store: Store,
  variable: keyof typeof breaks,
  secret: string,
  now = new Date(),
): Promise<void> {
  const fingerprints = await store.collection<FingerprintDoc>("secretFingerprints");
  const fingerprint = secretFingerprint(secret);
  let kept = await fingerprints.get(variable);
  if (!kept) {
    try {
      await fingerprints.insert({ _id: variable, fingerprint, recordedAt: now.toISOString() });
      return;
    } catch (err) {
      // Another copy recorded one at the same moment: compare with that.
      if (!(err instanceof DuplicateKeyError)) throw err;
      kept = await fingerprints.get(variable);
    }
  }
  if (kept && kept.fingerprint !== fingerprint) {
    const [what, why] = breaks[variable];
    throw new Error(
      `${variable} differs from the one ${what} (fingerprint ${kept.fingerprint}, this one ${fingerprint}): restore the original secret; ${why}`,
    );
  }
}
