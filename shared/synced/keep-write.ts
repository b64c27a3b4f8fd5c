import type { Logger } from "../observe/log.ts";
import { type Collection, type Doc, type Filter, FollowerFailedError, type Write } from "../store/port.ts";

/**
 * The one conditional write of a synced document, with its followers: its restore point and its byte
 * counts (shared/store/port.ts, Write). Where the store cannot commit them together (MongoDB) and a
 * follower fails after the write, the write stands and only history or the count misses it: `followed`
 * is then false, and `missing` is what the warning says was not written.
 */
export async function updateKeepingWrite<T extends Doc>(
  log: Logger,
  collection: Collection<T>,
  write: { filter: Filter<T>; changes: Partial<T>; followers: Write[] },
  missing: string,
): Promise<{ updated: T | null; followed: boolean }> {
  try {
    return { updated: await collection.update(write.filter, write.changes, write.followers), followed: true };
  } catch (err) {
    if (!(err instanceof FollowerFailedError)) throw err;
    log.warn(missing, { err: err.cause });
    return { updated: err.updated as T | null, followed: false };
  }
}
