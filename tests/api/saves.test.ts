import { expect, test } from "bun:test";
import { admin, call, newTenant } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { sized } from "../helpers/payloads.ts";

const newSaveId = () => `save-${crypto.randomUUID().slice(0, 8)}`;

// These tests create more saves from one address than the default 30 a minute.
forEachDeployment(
  "save-based model",
  { tenant: { rateLimits: { saveCreationsPerIpPerMinute: 10_000 } } },
  ({ d, tenant }) => {
    const sync = (saveId: string, body: unknown, withKey = tenant.key) =>
      call(d, "POST", `/api/v1/saves/${saveId}/sync`, { key: withKey, body });
    const load = (saveId: string, withKey = tenant.key) => call(d, "GET", `/api/v1/saves/${saveId}`, { key: withKey });

    test("create at base 0, accept at the current version, and always answer the canonical save", async () => {
      const id = newSaveId();
      const created = await sync(id, {
        baseVersion: 0,
        externalUserId: "player-1",
        metadata: { level: 1 },
        state: { hp: 100 },
      });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        status: "accepted",
        save: {
          saveId: id,
          externalUserId: "player-1",
          metadata: { level: 1 },
          state: { hp: 100 },
          version: 1,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      });
      const next = await sync(id, { baseVersion: 1, state: { hp: 80 } });
      expect(next.body.save).toMatchObject({
        version: 2,
        metadata: { level: 1 },
        state: { hp: 80 },
        externalUserId: "player-1",
        createdAt: created.body.save.createdAt,
      });
      const meta = await sync(id, { baseVersion: 2, metadata: { level: 2 } });
      expect(meta.body.save).toMatchObject({ version: 3, metadata: { level: 2 }, state: { hp: 80 } });
      expect((await load(id)).body).toEqual({ save: meta.body.save });
    });

    test("a stale base is 409 with the canonical save; base 0 over an existing save is 409; nothing changes", async () => {
      const id = newSaveId();
      await sync(id, { baseVersion: 0, externalUserId: "p", state: { v: 1 } });
      await sync(id, { baseVersion: 1, state: { v: 2 } });
      const stale = await sync(id, { baseVersion: 1, state: { v: 99 } });
      expect(stale.status).toBe(409);
      expect(stale.body).toEqual({
        status: "conflict",
        save: expect.objectContaining({ version: 2, state: { v: 2 } }),
        details: { reason: "base_version_mismatch", clientBaseVersion: 1 },
      });
      const again = await sync(id, { baseVersion: 0, externalUserId: "p", state: { v: 0 } });
      expect([again.status, again.body.save.version, again.body.details.clientBaseVersion]).toEqual([409, 2, 0]);
      expect((await load(id)).body.save).toMatchObject({ version: 2, state: { v: 2 } });
    });

    test("30 concurrent writers from one base: exactly 1 accepted, 29 conflicts, the winner's state stays", async () => {
      const id = newSaveId();
      await sync(id, { baseVersion: 0, externalUserId: "p", state: { writer: -1 } });
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => sync(id, { baseVersion: 1, state: { writer: i } })),
      );
      const accepted = answers.filter((a) => a.status === 200);
      expect(accepted).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409 && a.body.status === "conflict")).toHaveLength(29);
      expect((await load(id)).body.save).toMatchObject({ version: 2, state: accepted[0]!.body.save.state });
    });

    test("30 concurrent creates of one id: exactly 1 created", async () => {
      const id = newSaveId();
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => sync(id, { baseVersion: 0, externalUserId: `p${i}`, state: { i } })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(29);
    });

    test("externalUserId is required to create and cannot change; an unknown save is 404", async () => {
      const id = newSaveId();
      const missing = await sync(id, { baseVersion: 0, state: {} });
      expect([missing.status, missing.body.error.code, missing.body.error.details.issues[0].path]).toEqual([
        400,
        "invalid_request",
        "body.externalUserId",
      ]);
      expect((await load(id)).status).toBe(404);
      await sync(id, { baseVersion: 0, externalUserId: "owner" });
      const changed = await sync(id, { baseVersion: 1, externalUserId: "thief", state: { v: 1 } });
      expect([changed.status, changed.body.error.code]).toEqual([400, "invalid_request"]);
      expect((await sync(id, { baseVersion: 1, externalUserId: "owner", state: { v: 1 } })).status).toBe(200);
      const unknown = await sync(newSaveId(), { baseVersion: 3, state: {} });
      expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
      expect((await load(newSaveId())).body.error.code).toBe("not_found");
    });

    test("size limits: state 262144 and metadata 16384 bytes are accepted, one more is 413; a body over 1 MiB is 413", async () => {
      const id = newSaveId();
      expect(
        (await sync(id, { baseVersion: 0, externalUserId: "p", state: sized(262_144), metadata: sized(16_384) }))
          .status,
      ).toBe(200);
      const bigState = await sync(id, { baseVersion: 1, state: sized(262_145) });
      expect(bigState.body.error).toEqual({
        code: "payload_too_large",
        message: expect.any(String),
        details: { field: "state", limitBytes: 262_144, actualBytes: 262_145 },
      });
      const bigMeta = await sync(id, { baseVersion: 1, metadata: sized(16_385) });
      expect(bigMeta.body.error.details).toEqual({ field: "metadata", limitBytes: 16_384, actualBytes: 16_385 });
      const huge = await call(d, "POST", `/api/v1/saves/${id}/sync`, {
        key: tenant.key,
        raw: `{"baseVersion":1,"state":{"s":"${"x".repeat(1_048_600)}"}}`,
      });
      expect(huge.status).toBe(413);
      expect((await load(id)).body.save.version).toBe(1);
    });

    test("bad ids, bad JSON, unknown keys and wrong types are 400 and change nothing", async () => {
      const id = newSaveId();
      await sync(id, { baseVersion: 0, externalUserId: "p", state: { v: 1 } });
      for (const bad of ["bad%20id", "x".repeat(129), "..", "%F0%9F%8E%AE"]) {
        const answer = await call(d, "POST", `/api/v1/saves/${bad}/sync`, {
          key: tenant.key,
          body: { baseVersion: 0, externalUserId: "p" },
        });
        expect([bad, answer.status]).toEqual([bad, bad === ".." ? 404 : 400]);
      }
      expect(
        (await call(d, "POST", `/api/v1/saves/${id}/sync`, { key: tenant.key, raw: '{"baseVersion":1,"state":' }))
          .status,
      ).toBe(400);
      expect((await sync(id, { baseVersion: 1, state: {}, extra: true })).status).toBe(400);
      expect((await sync(id, { baseVersion: -1 })).status).toBe(400);
      expect((await sync(id, { baseVersion: "1", state: {} })).status).toBe(400);
      expect((await sync(id, { baseVersion: 1, state: [1] })).status).toBe(400);
      expect((await sync(id, { baseVersion: 1, externalUserId: "x".repeat(129) })).status).toBe(400);
      expect((await call(d, "POST", `/api/v1/saves/${id}/sync`, { body: { baseVersion: 1, state: {} } })).status).toBe(
        401,
      );
      expect((await load(id)).body.save).toMatchObject({ version: 1, state: { v: 1 } });
    });

    const remove = (saveId: string, withKey = tenant.key) =>
      call(d, "DELETE", `/api/v1/saves/${saveId}`, { key: withKey });
    const operator = (method: string, saveId: string, path = "", body?: unknown) =>
      admin(d, method, `/admin/v1/projects/${tenant.projectId}/environments/stage/saves/${saveId}${path}`, body);
    const pointVersions = (r: { body: { restorePoints: { version: number }[] } }) =>
      r.body.restorePoints.map((p) => p.version);

    test("delete erases a save and its history; a second delete is alreadyDeleted; the id is created again at version 1", async () => {
      const id = newSaveId();
      await sync(id, { baseVersion: 0, externalUserId: "p", state: { v: 1 } });
      await sync(id, { baseVersion: 1, state: { v: 2 } });
      const first = await remove(id);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ saveId: id, deletedAt: expect.any(String), alreadyDeleted: false });
      expect((await load(id)).status).toBe(404);
      expect((await operator("GET", id, "/history")).status).toBe(404);
      expect((await remove(id)).body).toEqual({ saveId: id, deletedAt: first.body.deletedAt, alreadyDeleted: true });
      // A sync from the old base finds nothing; base 0 creates a new save with none of the old history.
      expect((await sync(id, { baseVersion: 2, state: { v: 3 } })).status).toBe(404);
      const again = await sync(id, { baseVersion: 0, externalUserId: "q", state: { v: 10 } });
      expect(again.body).toMatchObject({
        status: "accepted",
        save: { version: 1, externalUserId: "q", state: { v: 10 } },
      });
      expect(pointVersions(await operator("GET", id, "/history"))).toEqual([1]);
      expect((await operator("POST", id, "/restore", { version: 2 })).status).toBe(404);
      const never = await remove(newSaveId());
      expect([never.status, never.body.error.code]).toEqual([404, "not_found"]);
      // The operator's delete is the same erasure.
      expect((await operator("DELETE", id)).body).toMatchObject({ saveId: id, alreadyDeleted: false });
      expect((await load(id)).status).toBe(404);
    });

    test("operators list a save's restore points and restore one; the stale device gets the 409 with it", async () => {
      const id = newSaveId();
      await sync(id, { baseVersion: 0, externalUserId: "p", metadata: { lvl: 1 }, state: { v: 1 } });
      await sync(id, { baseVersion: 1, state: { v: 2 } });
      await sync(id, { baseVersion: 2, metadata: { lvl: 3 }, state: { v: 3 } });
      const listed = await operator("GET", id, "/history");
      expect(listed.body).toEqual({
        saveId: id,
        restorePoints: [3, 2, 1].map((v) => ({
          version: v,
          createdAt: expect.any(String),
          sizeBytes: Buffer.byteLength(JSON.stringify({ v })),
        })),
      });
      const restored = await operator("POST", id, "/restore", { version: 1 });
      expect(restored.status).toBe(200);
      expect(restored.body.save).toMatchObject({
        saveId: id,
        version: 4,
        metadata: { lvl: 1 },
        state: { v: 1 },
        externalUserId: "p",
      });
      expect((await load(id)).body).toEqual(restored.body);
      const stale = await sync(id, { baseVersion: 3, state: { v: 99 } });
      expect(stale.status).toBe(409);
      expect(stale.body.save).toMatchObject({ version: 4, state: { v: 1 } });
      expect(pointVersions(await operator("GET", id, "/history"))).toEqual([4, 3, 2, 1]);
      // Undo: the replaced version 3 is still a restore point.
      expect((await operator("POST", id, "/restore", { version: 3 })).body.save).toMatchObject({
        version: 5,
        metadata: { lvl: 3 },
        state: { v: 3 },
      });
    });

    test("bad input to the delete and the operator's save routes is refused in the envelope and changes nothing", async () => {
      const id = newSaveId();
      await sync(id, { baseVersion: 0, externalUserId: "p", state: { v: 1 } });
      const answers = [
        await remove("bad%20id"),
        await remove("x".repeat(129)),
        await operator("POST", id, "/restore", { version: 0 }),
        await operator("POST", id, "/restore", { version: "1" }),
        await operator("POST", id, "/restore", { version: 1, state: {} }),
        await admin(d, "GET", `/admin/v1/projects/${tenant.projectId}/environments/dev/saves/${id}/history`),
        await admin(d, "DELETE", `/admin/v1/projects/nope/environments/stage/saves/${id}`),
      ];
      expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual(
        Array(answers.length).fill([400, "invalid_request"]),
      );
      const other = await newTenant(d);
      expect((await remove(id, other.key)).status).toBe(404);
      expect((await load(id)).body.save).toMatchObject({ version: 1, state: { v: 1 } });
      expect(pointVersions(await operator("GET", id, "/history"))).toEqual([1]);
    });

    test("saves belong to one environment: a prod key never sees a stage save", async () => {
      const t = await newTenant(d);
      const prodKey = (await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/prod/runtime-keys`, {}))
        .body.runtimeKey;
      const id = newSaveId();
      await sync(id, { baseVersion: 0, externalUserId: "p", state: { env: "stage" } }, t.key);
      expect((await load(id, prodKey)).status).toBe(404);
      const prod = await sync(id, { baseVersion: 0, externalUserId: "p", state: { env: "prod" } }, prodKey);
      expect(prod.body.save).toMatchObject({ version: 1, state: { env: "prod" } });
      expect((await load(id, t.key)).body.save.state).toEqual({ env: "stage" });
      expect((await load(id, tenant.key)).status).toBe(404); // another project's key
    });
  },
);
