import { html, type Raw } from "./html.ts";
import { type DiffEntry, jsonPathDiff } from "./json-path-diff.ts";

/**
 * Bounds of one rendered diff, so a page stays under 100 KB whatever the saves weigh (docs/console.md):
 * at most `maxRows` changed paths are listed, and no more rows than fit in `maxBytes` of markup (the
 * rest are counted); a value's JSON, and a path, is cut at `maxValueChars` with its whole size shown.
 */
export const diffBounds = { maxRows: 100, maxValueChars: 160, maxBytes: 48 * 1024 };

const sizeText = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

/** A value as short JSON: cut with its size when long. */
export function shortValue(value: unknown, maxChars = diffBounds.maxValueChars): string {
  const text = JSON.stringify(value) ?? "undefined";
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… (${sizeText(Buffer.byteLength(text))} in all)`;
}

const mark = { added: "+", removed: "−", changed: "~", unchanged: " " };
const word = { added: "added", removed: "removed", changed: "changed", unchanged: "unchanged" };
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

function row(e: DiffEntry): Raw {
  if (e.kind === "unchanged") {
    const where = e.path ? html`<code>${e.path}</code>: ` : "top level: ";
    const folded = plural(e.count, "unchanged key");
    return html`<tr class="unchanged"><td class="mark">${mark.unchanged}</td><td colspan="3" class="muted">${where}${folded} folded</td></tr>`;
  }
  const before = e.kind === "added" ? "" : shortValue(e.before);
  const after = e.kind === "removed" ? "" : shortValue(e.after);
  // No whitespace between the cells' tags: the cells keep their text's whitespace (pre-wrap).
  const cut = diffBounds.maxValueChars;
  const path = e.path.length > cut ? `${e.path.slice(0, cut)}…` : e.path || "(whole value)";
  const marked = html`<span aria-hidden="true">${mark[e.kind]}</span><span class="sr-only">${word[e.kind]}</span>`;
  return html`<tr class="${e.kind}"><td class="mark">${marked}</td><td><code>${
    path
  }</code> <span class="kind">${word[e.kind]}</span></td><td><code>${before}</code></td><td><code>${
    e.kind === "changed" ? "→ " : ""
  }${after}</code></td></tr>`;
}

/**
 * A value shown whole as pretty JSON when small, else its first `maxChars` with its size: a 256 KB save
 * does not make a 256 KB page (the CLI's `--json` gives it whole).
 */
export function boundedJson(value: unknown, maxChars = 8192): Raw {
  const text = JSON.stringify(value, null, 2) ?? "";
  if (text.length <= maxChars) return html`<pre class="json">${text}</pre>`;
  const size = sizeText(Buffer.byteLength(JSON.stringify(value)));
  return html`<pre class="json">${text.slice(0, maxChars)}\n…</pre>
<p class="muted">Cut here: ${size} in all (the CLI's <code>--json</code> prints it whole).</p>`;
}

/** The summary line: counts by kind, in words. */
export function diffSummary(d: { added: number; removed: number; changed: number; unchanged: number }): string {
  if (d.added + d.removed + d.changed === 0) return "No differences.";
  const parts = [
    d.added && `${d.added} added`,
    d.removed && `${d.removed} removed`,
    d.changed && `${d.changed} changed`,
  ].filter(Boolean);
  return `${parts.join(", ")}; ${plural(d.unchanged, "unchanged key")}.`;
}

/**
 * A diff of two JSON values by path (json-path-diff.ts), as a table: path, before, after; unchanged keys
 * folded into counts; each row marked in text too, not by colour alone. Bounded by `diffBounds`.
 */
export function diffTable(
  leftLabel: string,
  left: unknown,
  rightLabel: string,
  right: unknown,
  bounds: Partial<typeof diffBounds> = {},
): Raw {
  const { maxRows, maxBytes } = { ...diffBounds, ...bounds };
  const d = jsonPathDiff(left, right);
  let shown = 0;
  let bytes = 0;
  const rows: Raw[] = [];
  for (const e of d.entries) {
    const r = row(e);
    bytes += Buffer.byteLength(r.text);
    if (bytes > maxBytes || shown >= maxRows) break;
    rows.push(r);
    if (e.kind !== "unchanged") shown++;
  }
  const hidden = d.added + d.removed + d.changed - shown;
  return html`<p class="diff-summary">${diffSummary(d)}</p>
${
  d.entries.length && (d.added || d.removed || d.changed)
    ? html`<div class="diff-wrap"><table class="diff"><caption class="sr-only">Differences between ${
        leftLabel
      } and ${rightLabel}, by JSON path</caption>
<thead><tr><th scope="col" class="mark"><span class="sr-only">Change</span></th><th scope="col">Path</th><th scope="col">${leftLabel}</th><th scope="col">${
        rightLabel
      }</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : ""
}
${hidden > 0 ? html`<p class="muted diff-more">${plural(hidden, "more changed path")} not shown: the first ${shown} are listed.</p>` : ""}`;
}
