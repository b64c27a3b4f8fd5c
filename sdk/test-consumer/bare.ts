// Compiled by tests/sdk/package.test.ts with neither the DOM library nor @types/node (tsconfig.bare.json), as a
// game engine's scripts or a bare ES2022 project would: every entry's declarations must stand on their own.
import { createClient, type FetchFn, memoryStorage, type SavepointError } from "@savepoint/client";
import { createClient as createInBrowser, indexedDbStorage } from "@savepoint/client/browser";
import { fileStorage } from "@savepoint/client/file";
import type {} from "@savepoint/client/global";

declare const platformFetch: FetchFn;
export const client = createClient({
  baseUrl: "https://saves.example.com",
  runtimeKey: "k",
  storage: memoryStorage(),
  fetch: platformFetch,
});
export const browser = createInBrowser({
  baseUrl: "https://saves.example.com",
  runtimeKey: "k",
  storage: indexedDbStorage(),
});
export const desktop = createClient({
  baseUrl: "https://saves.example.com",
  runtimeKey: "k",
  storage: fileStorage("./saves"),
});
// What a `<script src="savepoint.global.min.js">` page finds on the global object.
export const fromScript: typeof createClient = Savepoint.createClient;
export const isError = (e: unknown): e is SavepointError => e instanceof Savepoint.SavepointError;
