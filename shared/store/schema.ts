import { serverVersion } from "../contract/version.ts";
import { latestSchemaOf, migrationsOf } from "./migrations.ts";
import { type Collection, DuplicateKeyError, type Store } from "./port.ts";

/**
 * Where a store records its schema: a `_meta` collection, one document per service. On SQLite that is a
 * table in the service's own file; on MongoDB one collection the services share, each its own document.
 */
type MetaDoc = { _id: string; version: number; server: string; at: string };
const metaOf = (store: Store): Promise<Collection<MetaDoc>> => store.collection<MetaDoc>("_meta");
const schemaId = (service: string) => `schema:${service}`;

/** The schema version `service`'s documents in `store` are at; 0 when none is recorded (a store from before versions, or a new one). */
export async function schemaVersionOf(store: Store, service: string): Promise<number> {
  return (await (await metaOf(store)).get(schemaId(service)))?.version ?? 0;
}

/** A store written by a newer server: this one cannot know what its documents mean. */
export class SchemaTooNewError extends Error {
  constructor(service: string, where: string, version: number) {
    super(
      `the ${service} store (${where}) is at schema version ${version}, but this server (Savepoint ${serverVersion}) knows schema ` +
        `${latestSchemaOf(service)} at most: run the newer server that wrote it, or restore a backup taken before it (docs/operating.md#upgrading)`,
    );
    this.name = "SchemaTooNewError";
  }
}

async function record(meta: Collection<MetaDoc>, service: string, version: number): Promise<void> {
  const doc = { version, server: serverVersion, at: new Date().toISOString() };
  if (await meta.update({ _id: schemaId(service) }, doc)) return;
  // Another copy of the service may record it first: then its update above would have matched.
  await meta.insert({ _id: schemaId(service), ...doc }).catch(async (err) => {
    if (!(err instanceof DuplicateKeyError)) throw err;
    await meta.update({ _id: schemaId(service) }, doc);
  });
}

/**
 * Brings `service`'s documents in `store` up to this server's schema, recording each step, or refuses a
 * store a newer server wrote (SchemaTooNewError). `where` names the store in that refusal. Returns the
 * versions before and after.
 */
export async function migrate(store: Store, service: string, where: string): Promise<{ from: number; to: number }> {
  const meta = await metaOf(store);
  const from = (await meta.get(schemaId(service)))?.version ?? 0;
  if (from > latestSchemaOf(service)) throw new SchemaTooNewError(service, where, from);
  let at = from;
  for (const step of migrationsOf(service)) {
    if (step.version <= at) continue;
    await step.up(store);
    await record(meta, service, step.version);
    at = step.version;
  }
  return { from, to: at };
}
