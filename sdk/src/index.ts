export { AccountHelpers, type Confirm, type TransferPrompt } from "./account-helpers.ts";
export { type CallOptions, SavepointApi } from "./api.ts";
export { type ClientOptions, SavepointClient, type Session } from "./client.ts";
export { type Clock, type ManualClock, manualClock, systemClock } from "./clock.ts";
export { defaultSyncPolicy } from "./config.ts";
export type { ForceResult } from "./engine.ts";
export { isRetryable, SavepointError, type SavepointErrorCode } from "./errors.ts";
export type { ConflictEvent, Events, Status, SyncState } from "./events.ts";
export { type KnownErrorCode, knownErrorCodes } from "./generated/error-codes.ts";
export { type OperationId, type RouteTypes, routes } from "./generated/routes.ts";
export * from "./generated/schemas.ts";
export {
  type Answer,
  type CallInput,
  type FetchFn,
  type FetchInit,
  type FetchResponse,
  newIdempotencyKey,
  Transport,
  type TransportOptions,
} from "./http.ts";
export { type JsonPath, type JsonRefusal, jsonRefusal, maxJsonDepth } from "./json-check.ts";
export type { LocalRecord, Snapshot } from "./local-store.ts";
export { type MergeContext, mergeRules, type Resolution, type Resolver, type Rule } from "./merge.ts";
export { createClient, openClient } from "./open-client.ts";
export {
  decide,
  nextPolicyReadAt,
  type PolicyDecision,
  type PolicyEvent,
  type PolicyOptions,
  type PolicyState,
} from "./policy-decision.ts";
export { keepsLocal, type ReattachDecision, type ReattachInput, reattachDecision } from "./reattach-decision.ts";
export type { RetryOptions } from "./retry.ts";
export { offsetFromDate, ServerClock } from "./server-clock.ts";
export {
  type AsyncKeyValueStore,
  asyncStorage,
  localStorageAdapter,
  memoryStorage,
  type StorageAdapter,
} from "./storage/adapter.ts";
export { indexedDbStorage } from "./storage/indexed-db.ts";
export {
  type EngineState,
  type SyncResult,
  type SyncStatus,
  summarize,
  type TargetResult,
  type TargetState,
  targetResult,
} from "./sync-result.ts";
export type {
  AnySlots,
  Jsonable,
  JsonFields,
  JsonObjectOf,
  JsonPrimitive,
  JsonValue,
  SlotId,
  SlotTypes,
} from "./typed-slots.ts";
export { type UnsyncedChange, unsyncedChanges, unsyncedOf } from "./unsynced.ts";
