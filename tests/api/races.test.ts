import { expect, test } from "bun:test";
import { newAccount } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

// Own deployments with fresh databases: FerretDB scans whole collections for most filters, so the
// shared deployment's data from earlier suites would measure FerretDB, not the race.
// Each race sends one account's requests at once: far more than the 8 an account may have in flight.
forEachDeployment(
  "concurrent writes",
  { own: true, tenant: { rateLimits: { accountConcurrentRequests: 100 } } },
  ({ d, tenant }) => {
    test("50 slot syncs from one base version: exactly 1 accepted, 49 conflicts, the winner's state stays", async () => {
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "race", data: { writer: -1 } } });
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          acc.call("POST", "/api/v1/accounts/{acc}/slots/race/sync", { body: { baseVersion: 1, data: { writer: i } } }),
        ),
      );
      const accepted = answers.map((a, i) => [a, i] as const).filter(([a]) => a.status === 200);
      expect(accepted).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409 && a.body.status === "conflict")).toHaveLength(49);
      const winner = accepted[0]![1];
      const final = await acc.call("GET", "/api/v1/accounts/{acc}/slots/race");
      expect(final.body).toMatchObject({ version: 2, data: { writer: winner } });
      // Every loser was shown the winner's state or the original, never its own write.
      for (const a of answers.filter((x) => x.status === 409))
        expect(a.body.slot.data.writer).toBe(a.body.version === 2 ? winner : -1);
    });

    test("20 account-data syncs from one base version: exactly 1 accepted", async () => {
      const acc = await newAccount(d, tenant.key);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
            body: { baseVersion: 1, accountData: { writer: i } },
          }),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body.version).toBe(2);
    });

    test("20 concurrent creates of one slot id: exactly 1 created", async () => {
      const acc = await newAccount(d, tenant.key);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "one", data: { i } } }),
        ),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409 && a.body.error.code === "slot_already_exists")).toHaveLength(19);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots")).body.slots).toHaveLength(1);
    });

    test("sequential syncs each add exactly one version", async () => {
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "seq", data: {} } });
      for (let v = 1; v <= 10; v++) {
        const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/seq/sync", {
          body: { baseVersion: v, data: { v } },
        });
        expect(sync.body.version).toBe(v + 1);
      }
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/seq")).body).toMatchObject({
        version: 11,
        data: { v: 10 },
      });
    });
  },
);
