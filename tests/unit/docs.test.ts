import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { routeHeading, routesMarkdown, wirePath } from "../../scripts/docs-routes.ts";
import { statusOf } from "../../services/gateway/errors.ts";
import { ErrorCode } from "../../shared/contract/errors.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import { anchorsOf } from "../helpers/markdown.ts";

// The rules the code follows live in docs/: these tests keep the documents and the code from drifting
// apart, and keep every comment that cites a section pointing at one that exists.

const root = join(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** Every TypeScript file of the code base outside node_modules and generated output. */
function sourceFiles(dir = root): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".") || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(name)) out.push(path);
  }
  return out;
}

describe("docs/error-codes.md", () => {
  /** Each table row's code and status: "| `code` | 400 | ...". */
  const rowsOf = () => {
    const rows = new Map<string, number>();
    for (const m of read("docs/error-codes.md").matchAll(/^\| `([a-z0-9_]+)` \| (\d{3}) \|/gm))
      rows.set(m[1]!, Number(m[2]));
    return rows;
  };

  test("lists every code of ErrorCode with the status the gateway answers it with", () => {
    const rows = rowsOf();
    const missing = ErrorCode.options.filter((code) => !rows.has(code));
    expect(missing).toEqual([]);
    const wrong = ErrorCode.options
      .filter((code) => rows.get(code) !== statusOf[code])
      .map((code) => `${code}: ${rows.get(code)}`);
    expect(wrong).toEqual([]);
  });

  test("lists no code the closed set does not have", () => {
    const rows = rowsOf();
    const known = new Set<string>(ErrorCode.options);
    expect([...rows.keys()].filter((code) => !known.has(code))).toEqual([]);
  });
});

describe("docs/routes.md", () => {
  test("has every route of the route table, by operationId, method and path", () => {
    const doc = read("docs/routes.md");
    const missing = allRoutes.filter(
      (r) => !doc.includes(`${routeHeading(r)}\n`) || !doc.includes(`\`${r.method} ${wirePath(r.path)}\``),
    );
    expect(missing.map((r) => r.operationId)).toEqual([]);
  });

  test("is what the route table generates now (run `bun scripts/docs-routes.ts` after changing a route)", () => {
    expect(read("docs/routes.md")).toBe(routesMarkdown());
  });
});

describe("citations of the rules", () => {
  const files = sourceFiles();

  test("every `docs/<file>.md#<section>` a comment cites is a heading of that document", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const m of readFileSync(file, "utf8").matchAll(/docs\/([a-z0-9-]+\.md)#([a-z0-9_-]+)/g)) {
        const doc = join(root, "docs", m[1]!);
        if (!existsSync(doc) || !anchorsOf(readFileSync(doc, "utf8")).has(m[2]!))
          broken.push(`${relative(root, file)}: ${m[0]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("no file cites a rule document that is not in the repository", () => {
    // Spelled in parts, so this file does not name them itself.
    const outsideDocs = new RegExp([["decisions", "md"].join("\\."), ["api", "contract"].join("-")].join("|"));
    const outside = files.filter((f) => outsideDocs.test(readFileSync(f, "utf8"))).map((f) => relative(root, f));
    expect(outside).toEqual([]);
  });

  test("docs/README.md links every document of docs/", () => {
    const index = read("docs/README.md");
    const docs = readdirSync(join(root, "docs")).filter((n) => n.endsWith(".md") && n !== "README.md");
    expect(docs.filter((n) => !index.includes(`(${n})`))).toEqual([]);
  });
});
