// Typed saves as a game declares them (sdk/README.md, Typed saves), compiled by tsc in tests/sdk/package.test.ts:
// every `@ts-expect-error` below must meet an error, or the compile fails.
import { createClient, type JsonObject, memoryStorage, openClient, type Snapshot } from "@savepoint/client";

interface MySave {
  coins: number;
  unlocks: string[];
  settings: { music: boolean };
  name?: string;
}
interface Settings {
  volume: number;
}
interface SlotLabel {
  label: string;
  level: number;
}
interface MyAccount {
  gems: number;
}
type Slots = { main: MySave; settings: Settings; [slotId: `extra-${number}`]: MySave };

/** Saves and reads typed slots on the server at `baseUrl`; returns what it read back. */
export async function typedSaves(baseUrl: string, runtimeKey: string) {
  // openClient: loaded, so load() answers; typed like createClient.
  const client = await openClient<Slots, MyAccount>({
    baseUrl,
    runtimeKey,
    storage: memoryStorage(),
    browserLifecycle: false,
  });
  const save: MySave = { coins: 7, unlocks: ["forest"], settings: { music: true } };
  const label: SlotLabel = { label: "World 1", level: 2 };
  const snapshot: Snapshot<MySave> = await client.save("main", save, label);
  await client.save("extra-2", { ...save, coins: 8 });
  await client.save("settings", { volume: 3 });
  await client.saveAccountData({ gems: 3 });
  // No casts: the declared types come back.
  const main: MySave | undefined = client.load("main");
  const extra: number | undefined = client.load("extra-2")?.coins;
  const volume: number | undefined = client.load("settings")?.volume;
  const gems: number | undefined = client.accountData()?.gems;
  const ring: Snapshot<Settings>[] = client.localSnapshots("settings");
  const labelBack = client.slotInfo("main");
  // Below, the wrong calls are compile errors; at run time they must not touch what was read above.

  // @ts-expect-error a slot id the game did not declare
  void client.load("other");
  // @ts-expect-error the wrong type for this slot
  void client.save("settings", save).catch(() => {});
  // @ts-expect-error coins is a number
  void client.save("main", { ...save, coins: "many" }).catch(() => {});
  // @ts-expect-error slot info must be JSON too: a Date comes back as a string
  void client.save("main", save, { at: new Date() }).catch(() => {});
  // @ts-expect-error account data has its own type
  void client.saveAccountData({ gems: "3" }).catch(() => {});

  // Types that JSON cannot carry exactly are refused where the slots are declared.
  // @ts-expect-error a Date comes back as a string
  createClient<{ main: { at: Date } }>({ baseUrl, runtimeKey });
  // @ts-expect-error a function vanishes
  createClient<{ main: { onSave: () => void } }>({ baseUrl, runtimeKey });
  // @ts-expect-error a BigInt cannot be serialised
  createClient<{ main: { big: bigint } }>({ baseUrl, runtimeKey });
  // @ts-expect-error a Map comes back as {}
  createClient<{ main: { items: Map<string, number> } }>({ baseUrl, runtimeKey });
  // @ts-expect-error a required undefined vanishes
  createClient<{ main: { maybe: number | undefined } }>({ baseUrl, runtimeKey });
  // @ts-expect-error a slot is an object, not an array
  createClient<{ main: number[] }>({ baseUrl, runtimeKey });
  // @ts-expect-error account data with a Set
  createClient<Slots, { friends: Set<string> }>({ baseUrl, runtimeKey });
  // @ts-expect-error openClient checks its declaration the same way
  void (() => openClient<{ main: { at: Date } }>({ baseUrl, runtimeKey }));

  // Undeclared, a client takes any slot id and any JSON object, as before.
  const plain = createClient({ baseUrl, runtimeKey, storage: memoryStorage(), browserLifecycle: false });
  await plain.start(); // a created client is loaded by start(); before it, load() refuses with not_ready
  const anything: JsonObject | undefined = plain.load("whatever");

  client.close();
  plain.close();
  return {
    seq: snapshot.seq,
    label: labelBack,
    main,
    extra,
    volume,
    gems,
    ring: ring.length,
    anything: anything ?? null,
  };
}
