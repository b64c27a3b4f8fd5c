import type { SyncAcceptedResponse } from "../../shared/contract/accounts.ts";
import type { IdempotencyRecordId } from "../../shared/serving/idempotency.ts";
import { type Replayed, replayed } from "../../shared/serving/reply.ts";
import { ownStamp } from "../../shared/serving/write-stamp.ts";
import { pointId } from "../../shared/store/history-ring.ts";
import type { Deps } from "./deps.ts";

type Marked = { version: number; updatedAt: string; lastSnapshotAt?: string; snapshotSeq: number; lastWrite?: string };

/**
 * The accepted answer of this key's own earlier write, when the document still holds exactly that write
 * (its stamp, shared/serving/write-stamp.ts: the warnings are what the answer held beyond the document).
 */
export async function earlierAnswer(
  deps: Deps,
  doc: Marked,
  ownerId: string,
  recordId: IdempotencyRecordId,
): Promise<Replayed<SyncAcceptedResponse> | undefined> {
  const mark = ownStamp(doc, recordId);
  if (!mark) return undefined;
  // Retained when this write's snapshot exists: the one a write due for a snapshot numbered.
  const snapshot =
    doc.lastSnapshotAt === doc.updatedAt ? await deps.repo.snapshots.get(pointId(ownerId, doc.snapshotSeq)) : null;
  const historyRetained = snapshot?.version === doc.version;
  const warnings = mark.warnings ? { warnings: mark.warnings } : {};
  const answer: SyncAcceptedResponse = {
    status: "accepted",
    version: doc.version,
    updatedAt: doc.updatedAt,
    historyRetained,
    ...warnings,
  };
  return replayed(answer);
}
