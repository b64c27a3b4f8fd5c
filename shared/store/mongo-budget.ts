import type { Document } from "mongodb";
import { BudgetExceededError, type Doc, type Write } from "./port.ts";

/** A follower with a budget (port.ts, Write `atMost`). */
export type Bounded = Extract<Write, { increment: string }> & { atMost: Record<string, number> };

/** What the MongoDB adapter's collections offer the bounded increments (mongo.ts). */
interface Counters {
  incrementAll(id: string, by: Record<string, number>, init: object): Promise<Doc>;
  incrementIfWithin(w: Bounded): Promise<Document | null>;
  get(id: string): Promise<Doc | null>;
}

const isBounded = (w: Write): w is Bounded => "increment" in w && w.atMost !== undefined;
const negated = (by: Record<string, number>) => Object.fromEntries(Object.entries(by).map(([f, n]) => [f, -n]));

/**
 * Makes a write's bounded followers apart from the write (MongoDB has no transaction to check them in):
 * each is a conditional increment, so concurrent writers of any number of copies never pass the budget
 * together. One without room gives back those made and rejects with BudgetExceededError. Returns the
 * other followers and how to give the bounded ones back when the write does not happen.
 */
export async function reserveBounded(
  then: readonly Write[] | undefined,
): Promise<{ rest: Write[] | undefined; giveBack: () => Promise<void> }> {
  const bounded = (then ?? []).filter(isBounded);
  if (bounded.length === 0) return { rest: then as Write[] | undefined, giveBack: async () => {} };
  const made: Bounded[] = [];
  const giveBack = async () => {
    for (const w of made.splice(0))
      await (w.in as unknown as Counters).incrementAll(w.increment, negated(w.by), w.init);
  };
  for (const w of bounded) {
    const counters = w.in as unknown as Counters;
    let counted = await counters.incrementIfWithin(w);
    // A counter not written yet: made at zero, then asked again.
    if (!counted && !(await counters.get(w.increment))) {
      await counters.incrementAll(w.increment, Object.fromEntries(Object.keys(w.by).map((f) => [f, 0])), w.init);
      counted = await counters.incrementIfWithin(w);
    }
    if (!counted) {
      await giveBack();
      throw new BudgetExceededError((await counters.get(w.increment)) ?? {}, w.by);
    }
    made.push(w);
  }
  return { rest: then!.filter((w) => !isBounded(w)), giveBack };
}
