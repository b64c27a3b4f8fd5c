// The package test's scratch project (tests/sdk/package.test.ts): a game's Node script using the installed package
// as a studio would: typed imports, the file adapter, a save, a sync, and typed errors. Args: baseUrl runtimeKey dir.
import { createClient, mergeRules, type SavepointError, type SlotResponse, type Status } from "@savepoint/client";
import { fileStorage } from "@savepoint/client/file";
import { typedSaves } from "./typed-saves.js";

const [baseUrl, runtimeKey, dir] = process.argv.slice(2) as [string, string, string];
const client = createClient({ baseUrl, runtimeKey, storage: fileStorage(dir), resolve: mergeRules({ coins: "sum" }) });
const accountId: string = await client.ensureAccount({ accountData: { coins: 0 } });
await client.save("main", { coins: 5 }, { label: "from the tarball" });
await client.sync({ force: true });
const status: Status = await client.idle();
const slot: SlotResponse = await client.api.getSlot("main");
// @ts-expect-error slot data is a JSON object, not a string: the types are real, not `any`.
void client.save("main", "not an object").catch(() => {}); // refused at run time too (invalid_json)
let error: SavepointError | undefined;
try {
  await client.api.getSlot("never-made");
} catch (e) {
  error = e as SavepointError;
}
const typed = await typedSaves(baseUrl, runtimeKey);
const report = {
  typed,
  accountId,
  state: status.state,
  slot: { version: slot.version, data: slot.data },
  error: { code: error?.code, status: error?.status },
};
console.log(JSON.stringify(report));
client.close();
