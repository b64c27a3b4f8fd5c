import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { anchorsOf, linkTargetsOf } from "../helpers/markdown.ts";

// The README keeps the quick start and the map; the rest lives in docs/. A section that moves, a file
// renamed or a heading reworded must not leave a link behind that leads nowhere.

const root = join(import.meta.dir, "../..");
const documents = [
  "README.md",
  "sdk/README.md",
  "sdk-unity/README.md",
  "sdk-vectors/README.md",
  "infra/plans/README.md",
  "CHANGELOG.md",
  ...readdirSync(join(root, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`),
];

/** Why a relative link of `from` leads nowhere, or undefined when it leads to a file (and heading) that exists. */
function brokenLink(from: string, target: string, readDoc = (p: string) => readFileSync(p, "utf8")) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: ...: not a file of the repository
  const [path = "", anchor] = target.split("#");
  const file = path ? join(dirname(join(root, from)), decodeURIComponent(path)) : join(root, from);
  if (relative(root, file).startsWith("..")) return "points outside the repository";
  if (!existsSync(file)) return "no such file";
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(file).isDirectory() || !file.endsWith(".md")) return "an anchor on a file that is not Markdown";
  return anchorsOf(readDoc(file)).has(anchor.toLowerCase()) ? undefined : "no such heading";
}

describe("links between the documents", () => {
  test("the documents checked include the README, every file of docs/ and both SDK READMEs", () => {
    expect(documents).toContain("docs/operating.md");
    expect(documents.length).toBeGreaterThan(10);
  });

  test("a link to a missing file or heading is caught (the check below can fail)", () => {
    expect(brokenLink("README.md", "docs/no-such-file.md")).toBe("no such file");
    expect(brokenLink("README.md", "docs/README.md#no-such-heading")).toBe("no such heading");
    expect(brokenLink("docs/README.md", "../../elsewhere/README.md")).toBe("points outside the repository");
    expect(brokenLink("docs/README.md", "../README.md#how-it-is-built")).toBeUndefined();
    expect(brokenLink("README.md", "#five-minutes-with-curl")).toBeUndefined();
  });

  test("every relative link of README.md, docs/*.md, the SDK and plan READMEs and the changelog leads to a file and heading that exist", () => {
    const broken: string[] = [];
    for (const doc of documents) {
      for (const target of linkTargetsOf(readFileSync(join(root, doc), "utf8"))) {
        const why = brokenLink(doc, target);
        if (why) broken.push(`${doc}: ${target} (${why})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
