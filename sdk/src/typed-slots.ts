import type { JsonObject } from "./generated/schemas.ts";

/** What JSON carries unchanged: the run-time check (json-check.ts) refuses everything else. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

/** Types TypeScript can tell will not round-trip: they map to `never`, so a declaration using them fails to compile. */
type NotJson =
  | bigint
  | symbol
  | undefined
  | ((...args: never[]) => unknown)
  | Date
  | Map<unknown, unknown>
  | Set<unknown>
  | ArrayBufferView
  | RegExp;

/**
 * `T` itself where every part of it is JSON, with `never` in place of each part that is not (a Date, a
 * function, a BigInt, a required `undefined`). Optional properties stay optional (absent is fine; an
 * explicit `undefined` is refused at run time). `unknown` and `any` pass: only the run-time check sees them.
 */
export type Jsonable<T> = unknown extends T
  ? T
  : T extends JsonPrimitive
    ? T
    : T extends NotJson
      ? never
      : T extends readonly (infer U)[]
        ? readonly Jsonable<U>[]
        : T extends object
          ? { [K in keyof T]: K extends symbol ? never : Jsonable<T[K]> }
          : never;

/** A slot's (or the account data's) type: a JSON object, not an array. */
export type JsonObjectOf<T> = T extends readonly unknown[] ? never : T extends object ? Jsonable<T> : never;

/**
 * The slots a game declares once, `createClient<{ main: MySave; settings: Settings }>(...)`: each slot
 * id's data type, checked to be JSON at compile time (README, Typed saves). Index signatures work for
 * slot ids made at run time: `{ [slotId: `slot-${number}`]: MySave }`.
 */
export type SlotTypes<S> = { [K in keyof S]: JsonObjectOf<S[K]> };

/** Without a declaration every slot id is a string and every save a `JsonObject`, as before. */
export type AnySlots = Record<string, JsonObject>;

/** The slot ids of `S`, as strings. */
export type SlotId<S> = keyof S & string;

/** An object type whose every field is JSON: the account data's type (`createClient<Slots, MyAccountData>`). */
export type JsonFields<T> = { [K in keyof T]: K extends symbol ? never : Jsonable<T[K]> };
