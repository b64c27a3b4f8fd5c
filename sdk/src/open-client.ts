import { type ClientOptions, SavepointClient } from "./client.ts";
import type { JsonObject } from "./generated/schemas.ts";
import type { AnySlots, JsonFields, SlotTypes } from "./typed-slots.ts";

/**
 * A client whose saves are loaded, so `load` answers at once: the quick start's way in (README, Quick
 * start). It reads only the device's storage, so it opens offline too; the policy is refreshed beside.
 * Typed like `createClient`: `openClient<{ main: MySave }, MyAccountData>(options)` (README, Typed saves).
 */
export async function openClient<S extends SlotTypes<S> = AnySlots, A extends JsonFields<A> = JsonObject>(
  options: ClientOptions,
): Promise<SavepointClient<S, A>> {
  const client = new SavepointClient<S, A>(options);
  await client.start();
  return client;
}

/**
 * A client for one game on one device; `load` refuses with `not_ready` until `start()` (or any async method)
 * has loaded its saves (`openClient` does both). Declare the slots' types once:
 * `createClient<{ main: MySave }, MyAccountData>(options)` (README, Typed saves).
 */
export const createClient = <S extends SlotTypes<S> = AnySlots, A extends JsonFields<A> = JsonObject>(
  options: ClientOptions,
) => new SavepointClient<S, A>(options);
