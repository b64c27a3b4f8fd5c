import type { Save } from "../../shared/contract/runtime.ts";
import type { Collection, Store } from "../../shared/store/port.ts";

/**
 * One save per id and environment (`_id` is `<envId>/<saveId>`): a stage key never sees a prod save.
 * `metadata` and `state` are serialized JSON, as every free-form value in the stores.
 */
export type SaveDoc = {
  _id: string;
  envId: string;
  saveId: string;
  externalUserId: string;
  metadata: string;
  state: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** `<key>@<version>`: the Idempotency-Key record id of the keyed write that made this version. */
  lastWrite?: string;
};

export interface Repo {
  saves: Collection<SaveDoc>;
}

export async function openRepo(store: Store): Promise<Repo> {
  return { saves: await store.collection<SaveDoc>("saves") };
}

export const saveDocId = (envId: string, saveId: string) => `${envId}/${saveId}`;

export const toSave = (d: SaveDoc): Save => ({
  saveId: d.saveId,
  externalUserId: d.externalUserId,
  metadata: JSON.parse(d.metadata),
  state: JSON.parse(d.state),
  version: d.version,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});
