/** Markdown as GitHub reads it, for the tests that keep documents and their links honest. */

/** The text outside fenced code blocks: a `#` comment in a shell block is not a heading. */
export function withoutCodeBlocks(markdown: string): string {
  let fenced = false;
  return markdown
    .split("\n")
    .map((line) => {
      if (line.startsWith("```")) fenced = !fenced;
      return fenced || line.startsWith("```") ? "" : line;
    })
    .join("\n");
}

/** The anchors a Markdown file's headings get on GitHub: lower case, punctuation dropped, spaces to hyphens. */
export function anchorsOf(markdown: string): Set<string> {
  const slugs = withoutCodeBlocks(markdown)
    .split("\n")
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) =>
      line
        .replace(/^#+ /, "")
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, "")
        .replace(/ /g, "-"),
    );
  return new Set(slugs);
}

/** The targets of a document's links, `[text](target)` (text may span lines), outside code. */
export function linkTargetsOf(markdown: string): string[] {
  const prose = withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, "``");
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}
