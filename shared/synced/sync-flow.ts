/**
 * What a sync (and a player's restore) does with the version it was sent, the same for every synced
 * document (docs/api-rules.md#versions-and-conflicts): on the current version it writes conditionally
 * on it; a stale base, or a write another one beat since the read, answers with the document as it is
 * now: this request's own earlier write again when the document still holds its write stamp, else the 409.
 */
export interface SyncSteps<T, A, R, C> {
  /** The conditional write on the version read; null when another write won since the read. */
  commit(): Promise<A | null>;
  /** The document after a lost write; throws the route's error when it is gone. */
  reread(): Promise<T>;
  /** The accepted answer of this request's own earlier write, when the document holds exactly that write. */
  own(doc: T): R | undefined | Promise<R | undefined>;
  conflict(doc: T): C | Promise<C>;
}

export async function syncFrom<T extends { version: number }, A, R, C>(
  current: T,
  baseVersion: number,
  steps: SyncSteps<T, A, R, C>,
): Promise<A | R | C> {
  let doc = current;
  if (doc.version === baseVersion) {
    const accepted = await steps.commit();
    if (accepted !== null) return accepted;
    doc = await steps.reread();
  }
  return (await steps.own(doc)) ?? (await steps.conflict(doc));
}
