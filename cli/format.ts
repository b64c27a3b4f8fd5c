import type { Answer } from "../shared/contract/admin-client.ts";
import type { Route } from "../shared/contract/route.ts";

/**
 * People-readable answers: scalars as aligned `key: value` lines, a nested record as an indented
 * section, a list of records as a table. Long values are clipped; `--json` always has everything.
 */
type Row = Record<string, unknown>;

// C0, DEL and C1: a terminal acts on them (ESC and CSI start sequences that move the cursor, recolour
// or retitle; CR and LF forge lines), so a value an attacker chose must never reach it raw.
const control = /[\u0000-\u001f\u007f-\u009f]/g;
const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Text with every control character shown as a visible escape: `\x1b`, `\r`, `\n`. */
export const visible = (text: string) =>
  text.replace(control, (c) => named[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

/**
 * A server's JSON answer for `--json`, still the same JSON: DEL and C1 characters, which JSON.stringify
 * leaves raw, become `\u00XX` escapes; text that is not JSON is shown as `visible` text.
 */
export function safeJsonText(text: string, isJson: boolean): string {
  if (!isJson) return visible(text);
  // In valid JSON a raw control character is only the whitespace between tokens: tab, LF, CR.
  return text.replace(
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const isRecord = (v: unknown): v is Row => typeof v === "object" && v !== null && !Array.isArray(v);
const isTable = (v: unknown): v is Row[] => Array.isArray(v) && v.every(isRecord);

function clip(value: unknown, max: number): string {
  if (value === undefined || value === null) return "-";
  const text = visible(typeof value === "object" ? JSON.stringify(value) : String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function keyValues(record: Row, indent: string): string[] {
  const keys = Object.keys(record).map(visible);
  const width = Math.max(...keys.map((k) => k.length)) + 1;
  return Object.values(record).map((v, i) => `${indent}${`${keys[i]}:`.padEnd(width)} ${clip(v, 100)}`);
}

function table(rows: Row[], indent: string): string[] {
  if (rows.length === 0) return [`${indent}none`];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => columns.map((c) => clip(r[c], 40)));
  const headers = columns.map(visible);
  const widths = headers.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    indent +
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(headers), ...cells.map(line)];
}

export function render(value: unknown): string {
  if (!isRecord(value)) return clip(value, Number.POSITIVE_INFINITY);
  const out: string[] = [];
  let scalars: Row = {};
  const flush = () => {
    if (Object.keys(scalars).length > 0) out.push(...keyValues(scalars, ""));
    scalars = {};
  };
  for (const [key, v] of Object.entries(value)) {
    if (!isRecord(v) && !isTable(v)) {
      scalars[key] = v;
      continue;
    }
    flush();
    if (out.length > 0) out.push("");
    if (isRecord(v)) out.push(visible(key), ...(Object.keys(v).length > 0 ? keyValues(v, "  ") : ["  none"]));
    else out.push(`${visible(key)} (${v.length})`, ...table(v, "  "));
  }
  flush();
  return out.join("\n");
}

interface ErrorBody {
  error?: { code?: string; message?: string; details?: { issues?: { path?: string; message?: string }[] } & Row };
}

/** Every command's route exists where the admin API is served: a 404 for one means SAVEPOINT_URL is not that address. */
const routeHint = (details: Row) =>
  details.adminApi !== "off" && String(details.path).startsWith("/admin/")
    ? " (is SAVEPOINT_URL the server's admin address, SAVEPOINT_ADMIN_ADDRESS?)"
    : "";

/** An error answer on one line: `code: message`, then what went wrong where. */
export function errorLine(answer: Answer<Route>): string {
  const error = (answer.body as ErrorBody | undefined)?.error;
  // An edit from a stale baseVersion: the usual 409, whose body is the state stored now.
  const stale = answer.body as { status?: unknown; version?: unknown } | undefined;
  if (answer.status === 409 && stale?.status === "conflict" && typeof stale.version === "number") {
    return `conflict: nothing was written; the current version is ${stale.version}. Read it again (--json shows it) and edit from there.`;
  }
  if (!error?.code)
    return `HTTP ${answer.status}: ${clip(answer.text.replace(/\s+/g, " ").trim() || "(empty answer)", 200)}`;
  let line = `${error.code}: ${error.message ?? ""}`;
  // A route's 404 names its path in the message already (and how to turn the admin API on).
  if (answer.status === 404 && typeof error.details?.path === "string") return visible(line + routeHint(error.details));
  const { issues, ...rest } = error.details ?? {};
  if (Array.isArray(issues)) line += ` ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`;
  if (Object.keys(rest).length > 0) line += ` ${JSON.stringify(rest)}`;
  return visible(line);
}
