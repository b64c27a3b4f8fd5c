import { type Replayed, replayed } from "../../shared/serving/reply.ts";
import type { SyncAcceptedResponse } from "../../shared/contract/accounts.ts";
import type { WriteKey } from "../../shared/serving/idempotency.ts";
import type { Deps } from "./service.ts";

/**
 * What a sync with an Idempotency-Key stamps on the document it changes, in the same conditional
 * write: the key's record id, the version it wrote, and what its answer holds beyond the document.
 * A process that dies after the write and before recording the answer leaves the key unanswered; the
 * retry then finds a stale base version, and this stamp tells it the write was its own.
 */
type WriteMark = { key: string; version: number; warnings?: string[] };

export const writeMark = (key: WriteKey, version: number, warnings: string[] | undefined): { lastWrite?: string } =>
  key ? { lastWrite: JSON.stringify({ key, version, ...(warnings ? { warnings } : {}) } satisfies WriteMark) } : {};

type Marked = { version: number; updatedAt: string; lastSnapshotAt?: string; snapshotSeq: number; lastWrite?: string };

/** The accepted answer of this key's own earlier write, when the document still holds exactly that write. */
export async function earlierAnswer(deps: Deps, doc: Marked, ownerId: string, key: WriteKey): Promise<Replayed<SyncAcceptedResponse> | undefined> {
  if (!key || !doc.lastWrite) return undefined;
  const mark = JSON.parse(doc.lastWrite) as WriteMark;
  if (mark.key !== key || mark.version !== doc.version) return undefined;
  // Retained when this write's snapshot exists: the one a write due for a snapshot numbered.
  const snapshot = doc.lastSnapshotAt === doc.updatedAt ? await deps.repo.snapshots.get(`${ownerId}:${doc.snapshotSeq}`) : null;
  const historyRetained = snapshot?.version === doc.version;
  const answer: SyncAcceptedResponse = { status: "accepted", version: doc.version, updatedAt: doc.updatedAt, historyRetained, ...(mark.warnings ? { warnings: mark.warnings } : {}) };
  return replayed(answer);
}
