import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// The SDK is tested against the distributed deployment too, not only the embedded one: every SDK suite that
// starts a server runs on both (forEachDeployment), except those whose subject is not the server.
const onEmbeddedOnly: Record<string, string> = {
  "browser.test.ts": "the SDK inside Chromium: the page, not the deployment, is what is tested",
  "browser-promises.test.ts": "the SDK inside Chromium",
  "browser-tabs.test.ts": "two Chromium tabs sharing one queue",
  "script-tag.test.ts": "the <script> build inside Chromium",
  "package.test.ts": "what npm pack ships and how a project type-checks against it",
  "killed-process.test.ts": "a game process killed with SIGKILL: the device's storage is what is tested",
};

test("every SDK suite that starts a server runs it on both deployments, unless it is listed with its reason", () => {
  const dir = join(import.meta.dir, "..", "sdk");
  const suites = readdirSync(dir).filter((f) => f.endsWith(".test.ts"));
  const embeddedOnly: string[] = [];
  let both = 0;
  for (const file of suites) {
    const text = readFileSync(join(dir, file), "utf8");
    if (text.includes("forEachDeployment(")) both++;
    else if (text.includes("startEmbedded(")) embeddedOnly.push(file);
  }
  expect(embeddedOnly.sort()).toEqual(Object.keys(onEmbeddedOnly).sort());
  expect(both).toBeGreaterThanOrEqual(14);
});
