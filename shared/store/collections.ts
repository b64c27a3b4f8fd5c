import type { Collection, CollectionOptions, Doc, Index, Store } from "./port.ts";

/** One collection of a service's repo: its name in the store and its indexes, typed by its documents. */
export interface CollectionSpec<T extends Doc> {
  name: string;
  indexes?: Index[];
  options?: CollectionOptions;
  /** Carries the document type only. */
  readonly doc?: T;
}

export const collection = <T extends Doc>(
  name: string,
  indexes?: Index[],
  options?: CollectionOptions & { apart?: readonly (keyof T & string)[] },
): CollectionSpec<T> => ({ name, indexes, options });

/** A repo from its specs: each key is the opened collection (doc comments on the specs carry over). */
export type CollectionsOf<S> = { [K in keyof S]: S[K] extends CollectionSpec<infer T> ? Collection<T> : never };

/** Opens every collection of a repo (creating it and its indexes when missing), one after another. */
export async function openCollections<S extends Record<string, CollectionSpec<Doc>>>(
  store: Store,
  specs: S,
): Promise<CollectionsOf<S>> {
  const repo: Record<string, Collection<Doc>> = {};
  for (const [key, spec] of Object.entries(specs))
    repo[key] = await store.collection(spec.name, spec.indexes, spec.options);
  return repo as CollectionsOf<S>;
}
