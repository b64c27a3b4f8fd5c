import { docComment, header, maxLine, type OpenApi, refName, tsType } from "./ts-type.ts";

/**
 * Splits the document's schemas into one generated file per route tag, so no file outgrows the project's size limit.
 * A schema the routes of several tags use goes to `common`; as whatever a shared schema points at is shared too,
 * tag files import from `common` only and never from each other.
 */
const jsonObject = `/** Any JSON object: the free-form payloads (slot data, accountData, slotInfo) round-trip as sent. */
export type JsonObject = { [key: string]: unknown };
`;

/** The schema names a piece of the document points at directly. */
function refsIn(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const x of node) refsIn(x, into);
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") into.add(refName(v));
      else refsIn(v, into);
    }
  }
  return into;
}

/** Each schema's group: the one tag whose routes use it (directly or through other schemas), else `common`. */
export function schemaGroups(doc: OpenApi): Map<string, string> {
  const schemas = doc.components.schemas;
  const reachable = (start: Set<string>) => {
    const seen = new Set<string>();
    const todo = [...start];
    while (todo.length) {
      const name = todo.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      todo.push(...refsIn(schemas[name]));
    }
    return seen;
  };
  const tagsOf = new Map<string, Set<string>>();
  for (const ops of Object.values(doc.paths)) {
    for (const op of Object.values(ops)) {
      const tag = String(op.tags?.[0] ?? "common");
      for (const name of reachable(refsIn(op))) tagsOf.set(name, (tagsOf.get(name) ?? new Set()).add(tag));
    }
  }
  const groupOf = (name: string) => {
    const tags = [...(tagsOf.get(name) ?? [])];
    return tags.length === 1 ? tags[0]! : "common";
  };
  return new Map(Object.keys(schemas).map((name) => [name, groupOf(name)]));
}

function importLine(names: string[], from: string): string {
  const one = `import type { ${names.join(", ")} } from "${from}";`;
  return one.length <= maxLine
    ? `${one}\n`
    : `import type {\n${names.map((n) => `  ${n},\n`).join("")}} from "${from}";\n`;
}

/** `schemas.ts` (re-exports only) and `schemas/<group>.ts`, keyed by their path under `sdk/src/generated`. */
export function schemaFiles(doc: OpenApi): Record<string, string> {
  const schemas = doc.components.schemas;
  const groups = schemaGroups(doc);
  const names = [...new Set(["common", ...groups.values()])].sort((a, b) =>
    a === "common" ? -1 : b === "common" ? 1 : a.localeCompare(b),
  );
  const files: Record<string, string> = {};
  for (const group of names) {
    const members = Object.keys(schemas).filter((n) => groups.get(n) === group);
    const types = members.map((name) => {
      const s = schemas[name]!;
      return `${s.description ? docComment(String(s.description)) : ""}export type ${name} = ${tsType(s)};\n`;
    });
    const code = types.join("\n");
    const fromCommon = [...new Set(members.flatMap((n) => [...refsIn(schemas[n])]))].filter(
      (n) => groups.get(n) === "common",
    );
    // Doc comment lines may name JsonObject; only code lines need the import.
    const codeLines = code.split("\n").filter((l) => !/^\s*(\/\*\*|\*)/.test(l));
    if (codeLines.some((l) => /\bJsonObject\b/.test(l))) fromCommon.push("JsonObject");
    fromCommon.sort();
    const imports = group !== "common" && fromCommon.length ? `${importLine(fromCommon, "./common.ts")}\n` : "";
    const body = group === "common" ? `${jsonObject}\n${code}` : code;
    files[`schemas/${group}.ts`] = `${header}\n${imports}${body}`;
  }
  files["schemas.ts"] = `${header}\n${names.map((g) => `export * from "./schemas/${g}.ts";\n`).join("")}`;
  return files;
}
