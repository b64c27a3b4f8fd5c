import type { z } from "zod";
import { fail } from "../../shared/contract/errors.ts";
import type { internal } from "../../shared/contract/internal.ts";
import type { AuditEntry, AuditQuery } from "../../shared/contract/operator.ts";
import { dayAfter, deleteDaysBefore } from "../../shared/store/prune-days.ts";
import { randomBase62 } from "../../shared/util/ids.ts";
import type { Deps } from "./deps.ts";
import type { AuditDoc } from "./repo.ts";

const hourMs = 3_600_000;
/** A value the list shows whole; a larger one is marked `{ large: true, sizeBytes }`, and its entry's own route has it whole. */
const listedValueBytes = 65_536;

const parsed = ({ _id, day: _, targets, before, after, ...d }: AuditDoc, whole: boolean): AuditEntry => {
  const value = (text: string) =>
    whole || text.length <= listedValueBytes ? JSON.parse(text) : { large: true, sizeBytes: Buffer.byteLength(text) };
  return { auditId: _id, ...d, targets: JSON.parse(targets), before: value(before), after: value(after) };
};

/**
 * The admin audit log (docs/console.md). Gateways record every admin change through one endpoint;
 * entries older than the retention setting are pruned a whole day at a time, at most once an hour.
 */
export function createAuditLog(deps: Pick<Deps, "repo" | "now" | "log">, retentionDays: number) {
  let lastPrune = 0;
  // Time-ordered ids: within one millisecond a counter keeps the order of recording in this process.
  let last = { ms: 0, seq: 0 };
  function nextAuditId(ms: number) {
    last = ms === last.ms ? { ms, seq: last.seq + 1 } : { ms, seq: 0 };
    return `aud_${ms.toString(36).padStart(9, "0")}_${last.seq.toString(36).padStart(4, "0")}_${randomBase62(12)}`;
  }

  async function prune() {
    const now = deps.now();
    if (now.getTime() - lastPrune < hourMs) return;
    lastPrune = now.getTime();
    await deleteDaysBefore(deps.repo.audit, "day", dayAfter(now, -retentionDays)).catch((err) =>
      deps.log.warn("audit prune failed", { err }),
    );
  }

  async function record(entry: z.infer<typeof internal.recordAudit.request>) {
    const at = deps.now().toISOString();
    const auditId = nextAuditId(Date.parse(at));
    const doc: AuditDoc = {
      _id: auditId,
      at,
      day: at.slice(0, 10),
      actor: entry.actor,
      action: entry.action,
      method: entry.method,
      path: entry.path,
      target: entry.target,
      targets: JSON.stringify(entry.targets),
      status: entry.status,
      before: JSON.stringify(entry.before ?? null),
      after: JSON.stringify(entry.after ?? null),
      ...(entry.reason !== undefined ? { reason: entry.reason } : {}),
    };
    await deps.repo.audit.insert(doc);
    await prune();
    return { auditId };
  }

  async function list(q: z.infer<typeof AuditQuery>): Promise<{ entries: AuditEntry[]; next?: number }> {
    const filter = { ...(q.target ? { target: q.target } : {}), ...(q.action ? { action: q.action } : {}) };
    const page = await deps.repo.audit.find(filter, {
      sort: { field: "_id", direction: -1 },
      skip: q.offset,
      limit: q.limit + 1,
    });
    // Newest first: everything after the first entry older than `since` is older too.
    const wanted = q.since ? page.filter((d) => d.at >= q.since!) : page;
    const more = wanted.length > q.limit;
    // A page of whole 256 KB values would outgrow a bus message: large ones are read one entry at a time.
    const entries = wanted.slice(0, q.limit).map((d) => parsed(d, false));
    return { entries, ...(more ? { next: q.offset + q.limit } : {}) };
  }

  /** One entry with its before and after whole, however large (issue: a cut value read as "No differences"). */
  async function get(auditId: string): Promise<AuditEntry> {
    const doc = await deps.repo.audit.get(auditId);
    if (!doc) throw fail.notFound("Audit entry");
    return parsed(doc, true);
  }

  return { record, list, get, prune };
}
export type AuditLog = ReturnType<typeof createAuditLog>;
