/** HTML that is already safe: markup built by `html`, never text from a request or the store. */
export class Raw {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (v: unknown) => String(v ?? "").replace(/[&<>"']/g, (c) => entities[c]!);

const part = (v: unknown): string => {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return v.map(part).join("");
  return v === undefined || v === null || v === false ? "" : esc(v);
};

/** Escapes every interpolated value unless it is `Raw` (or a list of them). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0]!;
  for (const [i, v] of values.entries()) out += part(v) + strings[i + 1];
  return new Raw(out);
}

export const json = (v: unknown) => html`<pre class="json">${JSON.stringify(v, null, 2)}</pre>`;
export const when = (at: string | undefined) =>
  at
    ? html`<time datetime="${at}">${at.replace("T", " ").replace(/\.\d+Z$/, "Z")}</time>`
    : html`<span class="muted">never</span>`;
export const enc = encodeURIComponent;

/**
 * A console or API path with every interpolated value encoded as one segment (or query value): an id
 * holding "/", "?" or "#" cannot reach another page. Every link, form action and redirect is built with it.
 */
export function href(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0]!;
  for (const [i, v] of values.entries()) out += enc(String(v ?? "")) + strings[i + 1];
  return out;
}

/** A form that posts to the console: every one carries the session's CSRF token. */
export function form(action: string, csrf: string, body: Raw | Raw[], attrs = ""): Raw {
  return html`<form method="post" action="${action}" ${new Raw(attrs)}><input type="hidden" name="_csrf" value="${csrf}">${body}</form>`;
}

/**
 * One button that posts, for actions with no fields (revoke, retry, suspend...). `shown` is a short
 * visible text in a table row; `label`, which names the target, is then its accessible name.
 */
export const button = (
  action: string,
  csrf: string,
  label: string,
  fields: Record<string, string> = {},
  cls = "",
  shown?: string,
) =>
  form(
    action,
    csrf,
    html`${Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}${
      shown
        ? html`<button type="submit" class="${cls}" aria-label="${label}">${shown}</button>`
        : html`<button type="submit" class="${cls}">${label}</button>`
    }`,
    'class="inline"',
  );

/** A table cell: "revoked" with its time once revoked, else the button that revokes (runtime keys, operators). */
export const revokeCell = (
  revokedAt: string | undefined,
  action: string,
  csrf: string,
  label: string,
  fields: Record<string, string> = {},
) =>
  revokedAt
    ? html`<span class="badge revoked">revoked</span> ${when(revokedAt)}`
    : button(action, csrf, label, fields, "danger", "Revoke");

const navItems = [
  ["/console", "Overview"],
  ["/console/workspaces", "Workspaces"],
  ["/console/find", "Find a player"],
  ["/console/dead-letters", "Dead letters"],
  ["/console/audit", "Audit log"],
  ["/console/operators", "Operators"],
] as const;

/** The page around every view; `csrf` is absent on the sign-in page. */
export function page(
  title: string,
  body: Raw,
  opts: { csrf?: string; notice?: string | null; error?: string | null } = {},
): string {
  const nav = opts.csrf
    ? html`<nav aria-label="Console"><ul>${navItems.map(([href, label]) => html`<li><a href="${href}">${label}</a></li>`)}</ul>
${form("/console/sign-out", opts.csrf, html`<button type="submit">Sign out</button>`, 'class="inline signout"')}</nav>`
    : "";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"historyCacheSize":0,"refreshOnHistoryMiss":true}'>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/htmx.min.js" defer></script>
<title>${title} · Savepoint console</title>
</head>
<body hx-boost="true" hx-history="false">
<header><a class="brand" href="/console">Savepoint console</a>${nav}</header>
<main id="main">
<h1>${title}</h1>
${opts.notice ? html`<p class="notice" role="status">${opts.notice}</p>` : ""}
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ""}
${body}
</main>
</body>
</html>
`.text;
}
