import { AppError, fail } from "../contract/errors.ts";
import { type Collection, type Doc, DuplicateKeyError, type Filter, type Write } from "./port.ts";

/**
 * Optimistic concurrency, once for every service: read, decide, write conditionally on what was read,
 * and go again when another writer got there first. A round that loses means another writer's change
 * landed, so rounds are bounded; what the last lost round answers is decided here (`exhausted`).
 */

/** The versioned-document base: a document whose every change is the next `version`. */
export type Versioned = { _id: string; version: number };

/** `id@version`: which version of which record, the text of a write stamp (shared/serving/write-stamp.ts). */
export const atVersion = (id: string, version: number) => `${id}@${version}`;

/** A round's answer when its conditional write matched nothing: go again, if rounds are left. */
export const lostRound: unique symbol = Symbol("lost round");
export type LostRound = typeof lostRound;

export interface RoundOptions<R> {
  /** How many rounds are tried: each caller says in one comment why its bound fits its route. */
  rounds: number;
  /**
   * What losing the last round answers. Unless a caller names another answer its route already gives,
   * it is 503 `service_unavailable`: the write did not happen and a retry may succeed.
   */
  exhausted?: () => R | AppError;
}

/** Runs `round` until it answers something other than `lostRound`, at most `rounds` times. */
export async function inRounds<R>(options: RoundOptions<R>, round: (n: number) => Promise<R | LostRound>): Promise<R> {
  for (let n = 0; n < options.rounds; n++) {
    const answer = await round(n);
    if (answer !== lostRound) return answer;
  }
  const last = options.exhausted ? options.exhausted() : fail.serviceUnavailable();
  if (last instanceof AppError) throw last;
  return last;
}

/** An insert that loses to a concurrent one with the same `_id` or unique key is a lost round. */
export async function insertOrLose<T extends Doc>(
  collection: Collection<T>,
  doc: T,
  then?: readonly Write[],
): Promise<T | LostRound> {
  try {
    await collection.insert(doc, then);
    return doc;
  } catch (err) {
    if (err instanceof DuplicateKeyError) return lostRound;
    throw err;
  }
}

/** An update whose filter (what was read) no longer matches is a lost round. */
export async function updateOrLose<T extends Doc>(
  collection: Collection<T>,
  filter: Filter<T>,
  changes: Partial<T>,
  then?: readonly Write[],
) {
  return (await collection.update(filter, changes, then)) ?? lostRound;
}

/**
 * What a round decides from what it read: stop with an answer, or write `changes` conditionally on it,
 * with `followers` (port.ts, Write). Not named `then`: an awaited decision would be taken for a promise.
 */
export type Decision<T extends Doc, S> =
  | { stop: S }
  /** `where`: the fields the change depends on, as read (`_id` is added); a document read but changed since is a lost round. */
  | { changes: Partial<T>; where?: Filter<T>; followers?: readonly Write[] }
  /** Nothing was read: insert it; a concurrent insert of the same id is a lost round. */
  | { insert: T; followers?: readonly Write[] };

export type Outcome<T, S> = { written: T } | { stopped: S };

/** The document a round wrote, for deciders that never stop. */
export const writtenOf = <T>(outcome: Outcome<T, never>): T =>
  "written" in outcome ? outcome.written : outcome.stopped;

/**
 * One document's read → decide → conditional write. The update is conditional on `where` (a versioned
 * document's default: the version read, see `updateVersioned`), so no concurrent change is lost.
 */
export async function updateInRounds<T extends Doc, S = never>(
  collection: Collection<T>,
  read: () => Promise<T | null>,
  decide: (current: T | null) => Decision<T, S> | Promise<Decision<T, S>>,
  options: RoundOptions<Outcome<T, S>>,
): Promise<Outcome<T, S>> {
  return inRounds(options, async () => {
    const current = await read();
    const decision = await decide(current);
    if ("stop" in decision) return { stopped: decision.stop };
    if ("insert" in decision) {
      const inserted = await insertOrLose(collection, decision.insert, decision.followers);
      return inserted === lostRound ? lostRound : { written: inserted };
    }
    if (!current) throw new Error("a change needs a document read: insert when none was");
    const where = { ...decision.where, _id: current._id } as Filter<T>;
    const updated = await updateOrLose(collection, where, decision.changes, decision.followers);
    return updated === lostRound ? lostRound : { written: updated };
  });
}

/** What a versioned document's round decides: stop, or its next content (the version is counted here). */
export type NextVersion<T extends Versioned, S> =
  | { stop: S }
  | { next: Omit<T, "_id" | "version">; followers?: (version: number) => readonly Write[] };

/**
 * A versioned document's read → decide → write at the next version, conditional on the version read;
 * a missing document is inserted at version 1. Two concurrent writers get two versions, none lost.
 */
export async function updateVersioned<T extends Versioned & Doc, S = never>(
  collection: Collection<T>,
  id: string,
  decide: (current: T | null) => NextVersion<T, S> | Promise<NextVersion<T, S>>,
  options: RoundOptions<Outcome<T, S>>,
): Promise<Outcome<T, S>> {
  return updateInRounds<T, S>(
    collection,
    () => collection.get(id),
    async (current) => {
      const decision = await decide(current);
      if ("stop" in decision) return decision;
      const { next, followers: followersAt } = decision as Exclude<NextVersion<T, S>, { stop: S }>;
      const version = (current?.version ?? 0) + 1;
      const followers = followersAt?.(version);
      const { _id: _, ...content } = next as Omit<T, "version">;
      if (!current) return { insert: { ...content, _id: id, version } as T, followers };
      return {
        changes: { ...content, version } as Partial<T>,
        where: { version: current.version } as Filter<T>,
        followers,
      };
    },
    options,
  );
}
