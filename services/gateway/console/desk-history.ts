import type { Ctx } from "./context.ts";
import { diffTable } from "./diff.ts";
import { form, href, html, type Raw, when } from "./html.ts";

/**
 * One history the desk shows (docs/console.md): a slot's, an account's data, or a save's. Each is
 * read through its admin routes: the current state, the list of restore points, one point's content.
 */
export interface History {
  /** The console page of this history; its restore confirmation is `${page}/restore?version=N`. */
  page: string;
  /** Reads the restore points ({version, createdAt, sizeBytes}). */
  points(): Promise<{ version: number; createdAt: string; sizeBytes: number }[]>;
  /** Reads what is restored and diffed from one restore point's content. */
  contentOf(version: number): Promise<unknown>;
  /** Restores a version; answers the version written. */
  restore(version: number): Promise<number>;
  current: { version: number; content: unknown };
  /** Whether a restore can be written now (an archived slot's cannot). */
  restorable: boolean;
}

const versionOptions = (points: { version: number }[], selected?: number) =>
  points.map(
    (p) => html`<option value="${p.version}" ${p.version === selected ? "selected" : ""}>${p.version}</option>`,
  );

/**
 * The timeline of restore points, the current version marked (text and `aria-current`, not colour
 * alone), with a compare form whose diff is the console's one diff (diff.ts).
 */
export async function historySection(ctx: Ctx, h: History): Promise<Raw> {
  const points = await h.points();
  const q = ctx.url.searchParams;
  const a = Number(q.get("a")) || undefined;
  const b = Number(q.get("b")) || undefined;
  let compare = html``;
  if (a && b) {
    const read = async (v: number) => (v === h.current.version ? h.current.content : h.contentOf(v));
    const [left, right] = await Promise.all([read(a), read(b)]);
    compare = html`<h3>Version ${a} against version ${b}</h3>${diffTable(`Version ${a}`, left, `Version ${b}`, right)}`;
  }
  const hasCurrent = points.some((p) => p.version === h.current.version);
  const toChoices = [h.current, ...points.filter((p) => p.version !== h.current.version)];
  const items = points.map((p) => {
    const isCurrent = p.version === h.current.version;
    return html`<li class="${isCurrent ? "current" : ""}" ${isCurrent ? html`aria-current="true"` : ""}><strong>Version ${p.version}</strong>
${isCurrent ? html`<span class="badge current">current</span>` : ""} · ${when(p.createdAt)} · ${p.sizeBytes} B
${h.restorable && !isCurrent ? html` · <a href="${h.page}${href`/restore?version=${p.version}`}">Restore version ${p.version}…</a>` : ""}</li>`;
  });
  const now = hasCurrent
    ? ""
    : html`<li class="current" aria-current="true"><strong>Version ${h.current.version}</strong>
<span class="badge current">current</span> · not a restore point (the plan keeps one per snapshot interval)</li>`;
  return html`<h2>Compare two versions</h2>
<form method="get" action="${h.page}"><div class="row">
<div><label for="d-a">From version</label><select id="d-a" name="a">${versionOptions(points, a)}</select></div>
<div><label for="d-b">To version</label><select id="d-b" name="b">${versionOptions(toChoices, b ?? h.current.version)}</select></div>
<div><button type="submit">Show diff</button></div></div></form>${compare}
<h2>Restore points</h2><ol class="timeline">${now}${items}</ol>`;
}

/** The restore confirmation: what devices will see, and the diff from now to the restored content. */
export async function confirmRestore(ctx: Ctx, h: History, what: string) {
  const version = Number(ctx.url.searchParams.get("version"));
  const point = await h.contentOf(version);
  const next = h.current.version + 1;
  const body = html`<div class="warn"><p><strong>What the player's devices will see next.</strong> The restore writes version ${version}'s
content as a new version, ${next}. A device still on version ${h.current.version} or older gets a <strong>409 conflict carrying the restored
content</strong> on its next sync and loads it; what it sent since stays in the restore points.</p></div>
${diffTable(`Now (version ${h.current.version})`, h.current.content, `After restore (content of ${version})`, point)}
${form(
  `${h.page}/restore`,
  ctx.csrf,
  html`<input type="hidden" name="version" value="${version}">
<button type="submit" class="danger">Restore version ${version} as version ${next}</button>`,
)}
<p><a href="${h.page}">Cancel</a></p>`;
  return { title: `Restore ${what} to version ${version}?`, body };
}
