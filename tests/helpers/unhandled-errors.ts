/**
 * The errors bun counted outside any test, found in the log of a run, each with where the run was when
 * bun reported it. bun prints such an error under the header of the file running at that moment, which
 * is often not its cause: a promise or timer a file left behind fails while the next file's beforeAll
 * runs. So each block names the file running, the file before it, and the last test that finished.
 */
export function unhandledErrors(text: string, linesAfter = 24): string[] {
  const blocks: string[] = [];
  const lines = text.split("\n");
  let file = "";
  let previousFile = "";
  let lastTest = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\S.*\.test\.ts:$/.test(line)) {
      previousFile = file;
      file = line.slice(0, -1);
    }
    const finished = /^\((pass|fail|skip|todo)\) (.*?)(?: \[[\d.]+m?s\])?$/.exec(line);
    if (finished) lastTest = `${file} > ${finished[2]}`;
    if (!line.startsWith("# Unhandled error")) continue;
    const where = [
      `while ${file || "(no file yet)"} ran`,
      `the file before it: ${previousFile || "none"}`,
      `the last test that finished: ${lastTest || "none"}`,
    ].join("; ");
    blocks.push([`${line} (${where})`, ...lines.slice(i + 1, i + 1 + linesAfter)].join("\n"));
  }
  return blocks;
}
