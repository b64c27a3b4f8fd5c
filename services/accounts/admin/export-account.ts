import type { AccountExport } from "../../../shared/contract/admin.ts";
import { Limits } from "../../../shared/contract/common.ts";
import { jsonByteLength } from "../../../shared/util/json.ts";
import type { Deps } from "../deps.ts";
import type { SlotDoc, SnapshotDoc } from "../repo.ts";
import { adminGetAccount, sessionView } from "./admin-account.ts";

/**
 * Bytes of records one page carries besides the account and its links. With the account view at its
 * limit (about 260 KiB) a page stays well inside a 1 MiB bus message, and any one record (a slot or
 * snapshot, at most about 280 KiB) fits a page alone.
 */
const pageBudget = Limits.requestBodyBytes - 300 * 1024;
/** Documents read per store round trip. */
const batch = 16;

type Section = "sessions" | "slots" | "history";
const sections: Section[] = ["sessions", "slots", "history"];
type Page = Pick<AccountExport, "sessions" | "slots" | "history">;

const slotView = (s: SlotDoc): AccountExport["slots"][number] => ({
  slotId: s.slotId,
  status: s.status,
  version: s.version,
  slotInfo: JSON.parse(s.slotInfo),
  data: JSON.parse(s.data),
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

/** A snapshot's owner is the account (accountData) or a slot document, named here by its slot id. */
async function historyView(
  deps: Deps,
  s: SnapshotDoc,
  slotIds: Map<string, string | undefined>,
): Promise<AccountExport["history"][number]> {
  if (!slotIds.has(s.ownerId))
    slotIds.set(s.ownerId, s.ownerId === s.accountId ? undefined : (await deps.repo.slots.get(s.ownerId))?.slotId);
  const slotId = slotIds.get(s.ownerId);
  return {
    ...(slotId !== undefined ? { slotId } : {}),
    version: s.version,
    createdAt: s.createdAt,
    payload: JSON.parse(s.payload),
  };
}

/** One section's records from `offset` on, oldest first, as views. */
async function read(
  deps: Deps,
  accountId: string,
  section: Section,
  offset: number,
  slotIds: Map<string, string | undefined>,
) {
  const page = { sort: { field: "createdAt", direction: 1 }, skip: offset, limit: batch } as const;
  if (section === "sessions") return (await deps.repo.sessions.find({ accountId }, page)).map(sessionView);
  if (section === "slots") return (await deps.repo.slots.find({ accountId }, page)).map(slotView);
  return Promise.all((await deps.repo.snapshots.find({ accountId }, page)).map((s) => historyView(deps, s, slotIds)));
}

/**
 * Operators: every record stored for an account (a data-subject access request), deleted accounts
 * included (what is left of them): sessions without token or hash, every slot generation with its
 * content, every stored snapshot. Records come in a fixed order (sessions, slots, history, each oldest
 * first); a page takes as many as fit its budget and names where the next page starts. The lists of
 * all pages together are the export: the CLI follows the pages and writes one document.
 */
export async function adminExportAccount(deps: Deps, accountId: string, cursor?: string): Promise<AccountExport> {
  const view = await adminGetAccount(deps, accountId, { offset: 0, limit: 1 });
  // The account is on every page; every list is split across pages (links all on the first).
  const out: Page & Pick<AccountExport, "links"> = {
    links: cursor ? [] : view.links,
    sessions: [],
    slots: [],
    history: [],
  };
  const slotIds = new Map<string, string | undefined>();
  let [section, offset] = cursor
    ? [cursor.split(":")[0] as Section, Number(cursor.split(":")[1])]
    : (["sessions", 0] as [Section, number]);
  let used = 0;
  while (true) {
    const records = await read(deps, accountId, section, offset, slotIds);
    for (const record of records) {
      const size = jsonByteLength(record) + 1;
      if (used + size > pageBudget && used > 0)
        return { exportedAt: deps.now().toISOString(), next: `${section}:${offset}`, account: view.account, ...out };
      (out[section] as unknown[]).push(record);
      used += size;
      offset++;
    }
    if (records.length < batch) {
      const following = sections[sections.indexOf(section) + 1];
      if (!following) return { exportedAt: deps.now().toISOString(), account: view.account, ...out };
      [section, offset] = [following, 0];
    }
  }
}
