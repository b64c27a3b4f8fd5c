import type { Route } from "../shared/contract/route.ts";
import { type Answer, callAdmin } from "./http.ts";

/**
 * A paged answer (one that names its `next` page, such as an account export) followed to its end and
 * merged into one document: list fields are concatenated, the rest is taken from the first page.
 */
export async function callAdminAllPages(
  base: string,
  token: string,
  route: Route,
  path: string,
  body?: Record<string, unknown>,
): Promise<Answer> {
  const first = await callAdmin(base, token, route, path, body);
  let page = first;
  const merged = first.body as Record<string, unknown> | undefined;
  while (page.ok && typeof (page.body as { next?: unknown })?.next === "string") {
    const next = (page.body as { next: string }).next;
    page = await callAdmin(
      base,
      token,
      route,
      `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(next)}`,
      body,
    );
    if (!page.ok) return page;
    for (const [field, value] of Object.entries(page.body as Record<string, unknown>)) {
      if (Array.isArray(value) && Array.isArray(merged![field])) (merged![field] as unknown[]).push(...value);
    }
  }
  if (!merged || merged.next === undefined) return first;
  delete merged.next;
  return { ...first, body: merged, text: JSON.stringify(merged) };
}
