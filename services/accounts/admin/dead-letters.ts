import type { z } from "zod";
import type { DeadLetter } from "../../../shared/contract/admin.ts";
import { fail } from "../../../shared/contract/errors.ts";
import { queues } from "../../../shared/contract/internal.ts";
import { redact } from "../../../shared/observe/log.ts";
import { sha256Hex } from "../../../shared/util/crypto.ts";
import type { Deps } from "../deps.ts";
import type { DeadLetterDoc } from "../repo.ts";

const queue = queues.cleanup;

/**
 * A cleanup job that ran out of deliveries is kept here, and its tombstone no longer says pending, so
 * a restart does not run it again: an operator looks (`savepoint dead-letter list`) and, once the
 * cause is fixed, queues it again. One record per job: a job dead twice keeps its latest failure.
 */
export async function recordDeadLetter(
  deps: Deps,
  job: unknown,
  failure: { deliveries: number; error: string },
): Promise<void> {
  const parsed = queue.schema.safeParse(job);
  const _id = parsed.success
    ? `${queue.name}:${parsed.data.kind}:${parsed.data.id}`
    : `${queue.name}:malformed:${sha256Hex(JSON.stringify(job) ?? "").slice(0, 16)}`;
  const doc: DeadLetterDoc = {
    _id,
    queue: queue.name,
    job: JSON.stringify(job ?? null),
    deliveries: failure.deliveries,
    error: redact(failure.error),
    failedAt: deps.now().toISOString(),
  };
  const { _id: id, ...rest } = doc;
  if (!(await deps.repo.deadLetters.update({ _id: id }, rest))) {
    await deps.repo.deadLetters.insert(doc).catch(() => deps.repo.deadLetters.update({ _id: id }, rest));
  }
  if (parsed.success)
    await tombstoneOf(deps, parsed.data.kind).update({ _id: parsed.data.id }, { cleanupPending: false });
}

const tombstoneOf = (deps: Deps, kind: "account" | "slot") =>
  kind === "account" ? deps.repo.accounts : deps.repo.slots;

const toDeadLetter = (d: DeadLetterDoc): z.infer<typeof DeadLetter> => ({
  deadLetterId: d._id,
  queue: d.queue,
  job: JSON.parse(d.job),
  deliveries: d.deliveries,
  error: d.error,
  failedAt: d.failedAt,
});

export async function adminListDeadLetters(deps: Deps) {
  const docs = await deps.repo.deadLetters.find({}, { sort: { field: "failedAt", direction: -1 } });
  return { deadLetters: docs.map(toDeadLetter) };
}

/** Marks the tombstone pending again and queues the job: a crash right after still finds it at start. */
export async function adminRetryDeadLetter(deps: Deps, deadLetterId: string) {
  const doc = await deps.repo.deadLetters.get(deadLetterId);
  if (!doc) throw fail.notFound("Dead letter");
  const job = queue.schema.safeParse(JSON.parse(doc.job));
  if (!job.success)
    throw fail.invalidRequest([
      { path: "deadLetterId", message: "this job is malformed and can never run: discard it" },
    ]);
  await tombstoneOf(deps, job.data.kind).update({ _id: job.data.id }, { cleanupPending: true });
  await deps.bus.enqueue(queue.name, job.data);
  await deps.repo.deadLetters.delete({ _id: deadLetterId });
  return { deadLetterId, requeued: true as const };
}

/** Drops a dead letter the operator has dealt with otherwise (or that can never run). */
export async function adminDiscardDeadLetter(deps: Deps, deadLetterId: string) {
  if ((await deps.repo.deadLetters.delete({ _id: deadLetterId })) === 0) throw fail.notFound("Dead letter");
  return { deadLetterId, discarded: true as const };
}
