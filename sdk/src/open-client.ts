import { type ClientOptions, SavepointClient } from "./client.ts";

/**
 * A client whose saves are loaded, so `load` answers at once: the quick start's way in (README, Quick
 * start). It reads only the device's storage, so it opens offline too; the policy is refreshed beside.
 */
export async function openClient(options: ClientOptions): Promise<SavepointClient> {
  const client = new SavepointClient(options);
  await client.start();
  return client;
}
