import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { clientRoutes, generate } from "../../sdk/scripts/generate.ts";
import * as A from "../../shared/contract/accounts.ts";
import { contractRoutes } from "../../shared/contract/routes.ts";

const generatedDir = join(import.meta.dir, "..", "..", "sdk", "src", "generated");

// The SDK's types come from the server's contract (sdk/README.md): a shape change the SDK does not follow fails here.
describe("sdk generated types", () => {
  test("the committed sdk/src/generated files are what the server's contract generates (run `npm run sdk:generate`)", () => {
    for (const [name, text] of Object.entries(generate()))
      expect(readFileSync(join(generatedDir, name), "utf8")).toBe(text);
  });

  test("a changed route shape on the server changes the generated types", () => {
    const changed = clientRoutes().map((r) =>
      r.operationId === "getSlot"
        ? {
            ...r,
            ok: [
              200,
              A.SlotResponse.extend({ checksum: z.string() }).meta({ id: "SlotResponseWithChecksum" }),
            ] as const,
          }
        : r,
    );
    const before = generate();
    const after = generate(changed);
    expect(after["routes.ts"]).not.toBe(before["routes.ts"]!);
    const getSlot = [
      "  getSlot: {",
      "    params: { accountId: string; slotId: string };",
      "    query: Record<string, never>;",
      "    body: undefined;",
    ];
    expect(after["routes.ts"]).toContain([...getSlot, "    ok: S.SlotResponseWithChecksum;"].join("\n"));
    expect(after["schemas/slots.ts"]).toContain("checksum: string;");
  });

  test("every runtime route of the server is in the SDK's route table, and no operator route", () => {
    const routes = readFileSync(join(generatedDir, "routes.ts"), "utf8");
    for (const r of clientRoutes()) expect(routes).toContain(`  ${r.operationId}: { method: "${r.method}"`);
    expect(routes).not.toContain("/admin/");
    // Every route of the runtime API (the contract's and the player routes), none left out.
    const runtime = Object.values(contractRoutes);
    expect(
      clientRoutes()
        .map((r) => r.operationId)
        .sort(),
    ).toEqual(runtime.map((r) => r.operationId).sort());
  });
});
