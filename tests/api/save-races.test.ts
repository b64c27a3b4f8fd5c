import { expect, test } from "bun:test";
import { join } from "node:path";
import { type SaveDoc, type SaveSnapshotDoc, type SaveUsageDoc, saveDocId } from "../../services/saves/repo.ts";
import { envIdOf } from "../../shared/contract/tenant.ts";
import { createMongoStore } from "../../shared/store/mongo.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { type Answer, admin, call } from "../helpers/api.ts";
import { type Deployment, startDistributed, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mongo } from "../helpers/infra.ts";

/**
 * A deployment of the suite's own (fresh databases: FerretDB scans whole collections), its saves'
 * store, and how many saves and clients of each its race runs: 1,000 syncs either way. FerretDB
 * serialises the increments of one document through a lease (shared/store/mongo-lease.ts), and every
 * save of an environment moves its one byte count, so the distributed race keeps fewer in flight.
 */
interface Setup {
  d: Deployment;
  other: Deployment;
  openStore(): Promise<Store>;
  race: { saves: number; clients: number };
  stop(): Promise<void>;
}

async function embedded(): Promise<Setup> {
  const d = await startEmbedded();
  return {
    d,
    other: d,
    openStore: async () => createSqliteStore(join(d.dataDir, "saves.sqlite")),
    race: { saves: 10, clients: 5 },
    stop: () => d.stop(),
  };
}

async function distributed(): Promise<Setup> {
  const d = await startDistributed({ copies: { gateway: 2, saves: 2 } });
  const other: Deployment = { ...d, request: (path, init) => fetch(`${d.bases[1]}${path}`, init) };
  return {
    d,
    other,
    openStore: async () => createMongoStore((await mongo()).url, d.db),
    race: { saves: 5, clients: 2 },
    stop: () => d.stop(),
  };
}

type Save = { saveId: string; version: number; createdAt: string; metadata: unknown; state: unknown };

const tenantOptions = { rateLimits: { saveCreationsPerIpPerMinute: 100_000 } };

forEachDeployment(
  "saves racing their deletion",
  { start: { embedded, distributed }, tenant: tenantOptions, timeoutMs: 120_000 },
  ({ setup: s, tenant }) => {
    test("1,000 syncs racing deletes: no 500, every answer a documented one, and the stored state agrees with the answers", async () => {
      const { saves: saveCount, clients } = s.race;
      const perClient = 1_000 / (saveCount * clients);
      const ids = Array.from({ length: saveCount }, (_, i) => `race-${i}-${crypto.randomUUID()}`);
      const syncs: { saveId: string; base: number; answer: Answer }[] = [];
      const deletes: { saveId: string; answer: Answer }[] = [];
      const via = (n: number) => (n % 2 ? s.other : s.d);
      for (const saveId of ids) {
        const body = { baseVersion: 0, externalUserId: "p", state: { n: 0 } };
        const answer = await call(s.d, "POST", `/api/v1/saves/${saveId}/sync`, { key: tenant.key, body });
        expect(answer.status).toBe(200);
        syncs.push({ saveId, base: 0, answer });
      }
      // A client keeps the canonical save it was last answered, as route 18 asks, and starts again from 0 when it is gone.
      const client = async (saveId: string, c: number) => {
        let base = 1;
        for (let i = 0; i < perClient; i++) {
          const body = {
            baseVersion: base,
            externalUserId: "p",
            state: { c, i, pad: "x".repeat((c * 37 + i * 11) % 300) },
          };
          const answer = await call(via(c + i), "POST", `/api/v1/saves/${saveId}/sync`, { key: tenant.key, body });
          syncs.push({ saveId, base, answer });
          base = answer.status === 404 ? 0 : (answer.body?.save?.version ?? base);
        }
      };
      let running = true;
      // Deletes land among the syncs until the clients are done, a few milliseconds to a few syncs apart.
      const deleter = async (saveId: string, n: number) => {
        for (let i = 0; running; i++) {
          await Bun.sleep(5 + ((n * 7 + i * 13) % 40));
          deletes.push({
            saveId,
            answer: await call(via(n + i), "DELETE", `/api/v1/saves/${saveId}`, { key: tenant.key }),
          });
        }
      };
      const everyClient = ids.flatMap((saveId) => Array.from({ length: clients }, (_, c) => client(saveId, c)));
      const syncing = Promise.all(everyClient).finally(() => (running = false));
      await Promise.all([syncing, ...ids.map(deleter)]);

      expect(syncs).toHaveLength(ids.length + 1_000);
      expect(syncs.filter((x) => x.answer.status >= 500).length).toBe(0);
      const statuses = (xs: { answer: Answer }[]) => [...new Set(xs.map((x) => x.answer.status))].sort();
      const undocumented = syncs.filter(({ base, answer: a }) => {
        if (a.status === 200) return a.body.status !== "accepted" || a.body.save?.version === undefined;
        if (a.status === 409)
          return (
            a.body.status !== "conflict" ||
            a.body.details?.reason !== "base_version_mismatch" ||
            a.body.save?.version === undefined
          );
        // Only a base above 0 may find no save (docs/api-rules.md#the-save-based-model): base 0 creates it.
        return !(a.status === 404 && a.body.error?.code === "not_found" && base > 0);
      });
      expect(undocumented.map((x) => [x.base, x.answer.status, x.answer.body])).toEqual([]);
      expect(
        deletes
          .filter((x) => x.answer.status !== 200 || typeof x.answer.body.alreadyDeleted !== "boolean")
          .map((x) => x.answer.body),
      ).toEqual([]);
      // The race did reach every path: lost updates, deleted saves, and saves created again.
      expect(statuses(syncs)).toEqual([200, 404, 409]);
      expect(deletes.filter((x) => !x.answer.body.alreadyDeleted).length).toBeGreaterThan(ids.length);
      expect(syncs.filter((x) => x.base === 0 && x.answer.status === 200).length).toBeGreaterThan(0);

      const store = await s.openStore();
      try {
        const saves = await store.collection<SaveDoc>("saves");
        const snapshots = await store.collection<SaveSnapshotDoc>("saveSnapshots");
        const usage = await store.collection<SaveUsageDoc>("saveUsage");
        const envId = envIdOf(tenant.projectId, "stage");
        let stored = 0;
        for (const saveId of ids) {
          const loaded = await call(s.d, "GET", `/api/v1/saves/${saveId}`, { key: tenant.key });
          const history = await admin(
            s.d,
            "GET",
            `/admin/v1/projects/${tenant.projectId}/environments/stage/saves/${saveId}/history`,
          );
          if (loaded.status === 404) {
            expect([saveId, history.status]).toEqual([saveId, 404]);
            continue;
          }
          expect(loaded.status).toBe(200);
          // The save is the last accepted write of its generation, and its restore points are exactly that generation's accepted versions.
          const save: Save = loaded.body.save;
          const accepted = syncs
            .filter((x) => x.saveId === saveId && x.answer.status === 200)
            .map((x) => x.answer.body.save as Save);
          const generation = accepted
            .filter((x) => x.createdAt === save.createdAt)
            .sort((a, b) => b.version - a.version);
          expect([saveId, save]).toEqual([saveId, generation[0]!]);
          const versions = history.body.restorePoints.map((p: { version: number }) => p.version);
          expect([saveId, versions]).toEqual([saveId, generation.map((x) => x.version)]);
          const doc = (await saves.get(saveDocId(envId, saveId)))!;
          stored += Buffer.byteLength(doc.metadata) + Buffer.byteLength(doc.state);
        }
        // Every byte the environment's budget counts is a live save's, and no erased save left a restore point.
        const live = await saves.find({ envId });
        expect((await usage.get(envId))?.bytes ?? 0).toBe(stored);
        const owners = new Set(live.map((x) => x.historyId));
        const points = (await snapshots.find({})).filter((p) => p.ownerId.startsWith(`${envId}/`));
        expect(points.filter((p) => !owners.has(p.ownerId)).map((p) => p._id)).toEqual([]);
      } finally {
        await store.close();
      }
    }, 240_000);
  },
);
