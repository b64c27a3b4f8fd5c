import type { Ctx } from "./context.ts";
import { diffTable } from "./diff.ts";
import { button, html } from "./html.ts";

/**
 * The two versions a page's `?a=N&b=M` asks to compare (game config, sync policy, a slot), and their
 * diff, each side read with `read`; no diff unless both are given.
 */
export async function comparison(ctx: Ctx, read: (version: number) => Promise<unknown>) {
  const a = Number(ctx.url.searchParams.get("a")) || undefined;
  const b = Number(ctx.url.searchParams.get("b")) || undefined;
  if (!a || !b) return { a, b, compare: html`` };
  const [left, right] = await Promise.all([a, b].map(read));
  return {
    a,
    b,
    compare: html`<h2>Version ${a} against version ${b}</h2>${diffTable(`Version ${a}`, left, `Version ${b}`, right)}`,
  };
}

/** A version row's rollback button; none on the version that is current already. */
export const rollbackButton = (action: string, csrf: string, version: number, current: number) =>
  version === current ? "" : button(action, csrf, `Roll back to version ${version}`, { version: String(version) });
