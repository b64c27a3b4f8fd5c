import { atVersion } from "../store/versioned.ts";
import type { IdempotencyRecordId } from "./idempotency.ts";

/**
 * What a write with an Idempotency-Key stamps on the document it changes, in the same conditional
 * write (docs/api-rules.md#idempotent-retries): its request's record id, the version it wrote, and the
 * warnings its answer carried. A process that dies after the write and before recording the answer
 * leaves the key unanswered; the retry then finds a stale base version, and the stamp tells it the
 * write was its own.
 */
export type WriteStamp = { recordId: string; version: number; warnings?: string[] };

/** `recordId@version`, then the warnings as a JSON list when the answer had any. Record ids are hex: no `@`, no space. */
const formatStamp = (s: WriteStamp) =>
  atVersion(s.recordId, s.version) + (s.warnings ? ` ${JSON.stringify(s.warnings)}` : "");

/** The document field a keyed write sets; nothing without a key. */
export const stampChanges = (
  recordId: IdempotencyRecordId,
  version: number,
  warnings: string[] | undefined,
): { lastWrite?: string } =>
  recordId ? { lastWrite: formatStamp({ recordId, version, ...(warnings ? { warnings } : {}) }) } : {};

/**
 * Reads a stamp, also the JSON form accounts wrote before this one (`{"key","version","warnings"}`):
 * documents written then still hold it until their next keyed write.
 */
export function parseStamp(text: string): WriteStamp {
  if (text.startsWith("{")) {
    const old = JSON.parse(text) as { key: string; version: number; warnings?: string[] };
    return { recordId: old.key, version: old.version, ...(old.warnings ? { warnings: old.warnings } : {}) };
  }
  const at = text.indexOf("@");
  const space = text.indexOf(" ", at);
  const version = Number(text.slice(at + 1, space < 0 ? undefined : space));
  const warnings = space < 0 ? undefined : (JSON.parse(text.slice(space + 1)) as string[]);
  return { recordId: text.slice(0, at), version, ...(warnings ? { warnings } : {}) };
}

/** This request's stamp, when the document still holds exactly the write it made. */
export function ownStamp(
  doc: { version: number; lastWrite?: string },
  recordId: IdempotencyRecordId,
): WriteStamp | undefined {
  if (!recordId || !doc.lastWrite) return undefined;
  const stamp = parseStamp(doc.lastWrite);
  return stamp.recordId === recordId && stamp.version === doc.version ? stamp : undefined;
}
