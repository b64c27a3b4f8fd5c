import { fail } from "../../shared/contract/errors.ts";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import type { StripeEvent } from "./verify-event.ts";

/** A claim this old belongs to a copy that died mid-apply: another delivery may take it over. */
const claimStaleMs = 60_000;
/** How long a repeat delivery waits for the one applying the same event (under the bus timeout). */
const waitForOtherMs = 3_000;

type Claim = "taken" | "applied" | "busy";

async function claim(deps: Deps, event: StripeEvent, at: number): Promise<Claim> {
  const { events } = deps.repo;
  try {
    await events.insert({ _id: event.id, type: event.type, created: event.created, state: "applying", claimedAt: at });
    return "taken";
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
  }
  const held = await events.get(event.id);
  if (!held) return "busy"; // released since the insert: claim again
  if (held.state === "applied") return "applied";
  if (at - held.claimedAt < claimStaleMs) return "busy";
  const taken = await events.update({ _id: event.id, state: "applying", claimedAt: held.claimedAt }, { claimedAt: at });
  return taken ? "taken" : "busy";
}

/**
 * Runs `apply` for an event so that each event id is applied once, however often Stripe delivers it.
 * The claim is written before anything is applied, so concurrent deliveries cannot both apply; a
 * repeat waits for the delivery applying it, then answers as a repeat. An apply that fails releases
 * its claim, so Stripe's retry applies the event. Returns false when it had already been applied.
 */
export async function applyOnce(deps: Deps, event: StripeEvent, apply: () => Promise<void>): Promise<boolean> {
  const { events } = deps.repo;
  const giveUpAt = Date.now() + waitForOtherMs;
  for (;;) {
    const at = deps.now().getTime();
    const outcome = await claim(deps, event, at);
    if (outcome === "applied") return false;
    if (outcome === "taken") {
      try {
        await apply();
      } catch (err) {
        await events.delete({ _id: event.id, claimedAt: at }).catch(() => {}); // else it goes stale and is taken over
        throw err;
      }
      await events.update({ _id: event.id, claimedAt: at }, { state: "applied", appliedAt: deps.now().toISOString() });
      return true;
    }
    if (Date.now() > giveUpAt) throw fail.serviceUnavailable();
    await Bun.sleep(25);
  }
}
