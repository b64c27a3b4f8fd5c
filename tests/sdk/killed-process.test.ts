import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileStorage } from "../../sdk/src/file.ts";
import { SavepointClient, systemClock } from "../../sdk/src/index.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { builtSdk, type Server, tenantWithPolicy } from "./helpers.ts";

let d: Server;
beforeAll(async () => {
  d = await startEmbedded();
  await builtSdk();
}, 300_000); // the declarations type-check the whole SDK: slow on a busy machine
afterAll(() => d.stop());

const game = join(import.meta.dir, "fixtures", "node-game.mjs");

/** Reads a child's stdout line by line until `until` matches one. */
async function readUntil(
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">,
  until: (line: string) => boolean,
): Promise<string[]> {
  const lines: string[] = [];
  let rest = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    rest += decoder.decode(chunk);
    const parts = rest.split("\n");
    rest = parts.pop()!;
    lines.push(...parts);
    if (parts.some(until)) return lines;
  }
  throw new Error(`child ended first: ${lines.join(" | ")} ${await new Response(proc.stderr).text()}`);
}

// What `save` acknowledged survives a killed process (README, Storage adapters).
describe("sdk: a killed Node process", () => {
  test("saves acknowledged before SIGKILL are on the server after the next start", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 1 });
    const dir = tempDir("sdk-node-game");
    // The account is made first; then the game runs against a server that takes requests and never answers.
    const setup = new SavepointClient({
      baseUrl: d.base,
      runtimeKey: t.key,
      storage: fileStorage(dir),
      clock: systemClock,
      browserLifecycle: false,
    });
    const accountId = await setup.ensureAccount();
    setup.close();
    const sockets = new Set<import("node:net").Socket>();
    const blackHole = createServer((s) => void sockets.add(s));
    await new Promise<void>((r) => blackHole.listen(0, "127.0.0.1", r));
    const silent = `http://127.0.0.1:${(blackHole.address() as { port: number }).port}`;
    try {
      const first = Bun.spawn(["node", game, "save", silent, t.key, dir, "5"], { stdout: "pipe", stderr: "pipe" });
      const lines = await readUntil(first, (l) => l === "saved 5");
      first.kill("SIGKILL");
      await first.exited;
      expect(lines).toContain("saved 5");
      expect(first.signalCode).toBe("SIGKILL");
    } finally {
      for (const s of sockets) s.destroy();
      blackHole.close();
    }
    const session = (await setup.store.getValue<{ token: string }>("session"))!.token;
    const headers = { authorization: `Bearer ${t.key}`, "x-service-account-session": session };
    const before = await d.request(`/api/v1/accounts/${accountId}/slots/main`, { headers });
    expect(before.status).toBe(404);

    const second = Bun.spawn(["node", game, "sync", d.base, t.key, dir], { stdout: "pipe", stderr: "pipe" });
    const out = await readUntil(second, (l) => l.startsWith("{"));
    await second.exited;
    const report = JSON.parse(out.find((l) => l.startsWith("{"))!);
    expect(report.status).toEqual({ state: "idle", pending: [] });
    expect(report.main.n).toBe(5);
    const slot = await (await d.request(`/api/v1/accounts/${accountId}/slots/main`, { headers })).json();
    expect(slot).toMatchObject({ version: 1, data: { n: 5 } });
  }, 120_000);
});
