import { html, type Raw } from "./html.ts";

type Row = { kind: "same" | "removed" | "added" | "changed"; left?: string; right?: string };

/** Longer inputs are shown whole, side by side, without line matching: the table stays small. */
const maxLines = 3000;

/** Pretty JSON with sorted keys, so two versions line up however their keys were ordered. */
export function lines(value: unknown): string[] {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === "object"
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]))
        : v;
  return value === undefined ? [] : JSON.stringify(sort(value), null, 2).split("\n");
}

/** A line diff by longest common subsequence; a removal next to an addition is one changed row. */
export function diffRows(a: string[], b: string[]): Row[] {
  if (a.length > maxLines || b.length > maxLines) {
    return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => ({ kind: a[i] === b[i] ? "same" : "changed", left: a[i], right: b[i] }));
  }
  const n = a.length;
  const m = b.length;
  const common = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  }
  const rows: Row[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) rows.push({ kind: "same", left: a[i++], right: b[j++] });
    else if (j < m && (i >= n || common[i]![j + 1]! >= common[i + 1]![j]!)) rows.push({ kind: "added", right: b[j++] });
    else rows.push({ kind: "removed", left: a[i++] });
  }
  // Pair the removals and additions of each run of changes, in order: a line edited is one row.
  const paired: Row[] = [];
  for (let k = 0; k < rows.length; ) {
    if (rows[k]!.kind === "same") {
      paired.push(rows[k++]!);
      continue;
    }
    const removed: string[] = [];
    const added: string[] = [];
    for (; k < rows.length && rows[k]!.kind !== "same"; k++) {
      if (rows[k]!.kind === "removed") removed.push(rows[k]!.left!);
      else added.push(rows[k]!.right!);
    }
    for (let p = 0; p < Math.max(removed.length, added.length); p++) {
      const l = removed[p];
      const r = added[p];
      paired.push({ kind: l !== undefined && r !== undefined ? "changed" : l !== undefined ? "removed" : "added", left: l, right: r });
    }
  }
  return paired;
}

const mark = { same: " ", removed: "−", added: "+", changed: "~" };
// No whitespace between the cells' tags: the cells keep their text's whitespace (pre-wrap).
const diffRow = (r: Row) =>
  html`<tr class="${r.kind}"><td class="mark">${mark[r.kind]}</td><td><code>${r.left ?? ""}</code></td><td><code>${r.right ?? ""}</code></td></tr>`;

/** A side-by-side diff table; each changed row is marked in text too, not by colour alone. */
export function diffTable(leftLabel: string, left: unknown, rightLabel: string, right: unknown): Raw {
  const rows = diffRows(lines(left), lines(right));
  const changes = rows.filter((r) => r.kind !== "same").length;
  return html`<p class="diff-summary">${changes === 0 ? "No differences." : `${changes} changed line${changes === 1 ? "" : "s"}.`}</p>
<div class="diff-wrap"><table class="diff"><caption class="sr-only">Differences between ${leftLabel} and ${rightLabel}</caption>
<thead><tr><th scope="col" class="mark"><span class="sr-only">Change</span></th><th scope="col">${leftLabel}</th><th scope="col">${rightLabel}</th></tr></thead>
<tbody>${rows.map(diffRow)}</tbody></table></div>`;
}
