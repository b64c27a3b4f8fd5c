import { fail } from "../../shared/contract/errors.ts";
import { inRounds, insertOrLose, type LostRound, lostRound, updateOrLose } from "../../shared/store/versioned.ts";
import type { Deps } from "./deps.ts";
import type { StripeEvent } from "./verify-event.ts";

/** A claim this old belongs to a copy that died mid-apply: another delivery may take it over. */
const claimStaleMs = 60_000;
/** How long a repeat delivery waits for the one applying the same event (under the bus timeout). */
const waitForOtherMs = 3_000;
/** The pause between two claims of a delivery that waits. */
const pauseMs = 25;

/** A claim lost to another delivery (one applying the event, or one that released it since) is a lost round. */
async function claim(deps: Deps, event: StripeEvent, at: number): Promise<"taken" | "applied" | LostRound> {
  const { events } = deps.repo;
  const doc = { _id: event.id, type: event.type, created: event.created, state: "applying" as const, claimedAt: at };
  if ((await insertOrLose(events, doc)) !== lostRound) return "taken";
  const held = await events.get(event.id);
  if (!held) return lostRound; // released since the insert: claim again
  if (held.state === "applied") return "applied";
  if (at - held.claimedAt < claimStaleMs) return lostRound;
  const taken = await updateOrLose(
    events,
    { _id: event.id, state: "applying", claimedAt: held.claimedAt },
    { claimedAt: at },
  );
  return taken === lostRound ? lostRound : "taken";
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
  // The wait is bounded by time, under the bus timeout (a round's reads may be slow); the count only backs it up.
  const won = await inRounds({ rounds: Math.ceil(waitForOtherMs / pauseMs) + 1 }, async () => {
    const at = deps.now().getTime();
    const outcome = await claim(deps, event, at);
    if (outcome !== lostRound) return { outcome, at };
    if (Date.now() > giveUpAt) throw fail.serviceUnavailable();
    await Bun.sleep(pauseMs);
    return lostRound;
  });
  if (won.outcome === "applied") return false;
  try {
    await apply();
  } catch (err) {
    await events.delete({ _id: event.id, claimedAt: won.at }).catch(() => {}); // else it goes stale and is taken over
    throw err;
  }
  await events.update({ _id: event.id, claimedAt: won.at }, { state: "applied", appliedAt: deps.now().toISOString() });
  return true;
}
