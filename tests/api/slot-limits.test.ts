import { expect, test } from "bun:test";
import { newAccount } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

const cap = 32; // docs/api-rules.md#slots: the default active-slot cap of every plan

// Some tests here make more requests with one account than the default 120 a minute, or 8 at once.
const rateLimits = { sessionRequestsPerMinute: 10_000, accountConcurrentRequests: 100 };
forEachDeployment("active-slot cap and complete listings", { tenant: { rateLimits } }, ({ d, tenant }) => {
  const fill = async (acc: Awaited<ReturnType<typeof newAccount>>, from: number, to: number) => {
    for (let i = from; i < to; i++)
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: `s${i}`, data: { i } } })).status,
      ).toBe(201);
  };

  test("one slot over the cap is 409 slot_limit_reached with the limit, and changes nothing; archiving frees a place", async () => {
    const acc = await newAccount(d, tenant.key);
    await fill(acc, 0, cap);
    const over = await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "one-more", data: {} } });
    expect(over.status).toBe(409);
    expect(over.body.error).toEqual({
      code: "slot_limit_reached",
      message: expect.any(String),
      details: { limit: cap },
    });
    const listed = await acc.call("GET", "/api/v1/accounts/{acc}/slots");
    expect(listed.body.slots).toHaveLength(cap);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/one-more")).status).toBe(404);

    expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots/s0/archive")).status).toBe(200);
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "one-more", data: {} } })).status,
    ).toBe(201);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body.slots).toHaveLength(cap);
  });

  test("concurrent creates never pass the cap: with 2 places left, exactly 2 of 12 win", async () => {
    const acc = await newAccount(d, tenant.key);
    await fill(acc, 0, cap - 2);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: `race${i}`, data: { i } } }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 409 && a.body.error.code === "slot_limit_reached")).toHaveLength(10);
    const slots = (await acc.call("GET", "/api/v1/accounts/{acc}")).body.slots as { slotId: string }[];
    expect(slots).toHaveLength(cap);
    const winners = answers.filter((a) => a.status === 201).map((a) => a.body.slotId);
    expect(slots.map((s) => s.slotId)).toEqual(expect.arrayContaining(winners));
  });

  test("account deletion counts every active and archived slot", async () => {
    const acc = await newAccount(d, tenant.key);
    await fill(acc, 0, cap);
    for (let i = 0; i < 8; i++)
      expect((await acc.call("POST", `/api/v1/accounts/{acc}/slots/s${i}/archive`)).status).toBe(200);
    await fill(acc, cap, cap + 8);
    const gone = await acc.call("DELETE", "/api/v1/accounts/{acc}");
    expect(gone.status).toBe(200);
    expect(gone.body.deletedSlotCount).toBe(cap + 8);
  });

  test("after 55 generations of one slot id, the archived one still answers slot_archived and can be deleted", async () => {
    const acc = await newAccount(d, tenant.key);
    const generations = 55;
    for (let i = 0; i < generations; i++) {
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "g", data: { i } } })).status,
      ).toBe(201);
      const path = `/api/v1/accounts/{acc}/slots/g/${i % 2 === 0 ? "archive" : ""}`;
      expect((await acc.call(i % 2 === 0 ? "POST" : "DELETE", path.replace(/\/$/, ""))).status).toBe(200);
    }
    // The newest generation (54) was archived; every older one is archived or deleted.
    const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/g/sync", { body: { baseVersion: 1, data: {} } });
    expect(sync.status).toBe(409);
    expect(sync.body.error).toMatchObject({ code: "slot_archived", details: { slotId: "g" } });
    const deleted = await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/g");
    expect(deleted.status).toBe(200);
    expect(deleted.body.alreadyDeleted).toBe(false);
    // The 27 older archived generations go newest first, then the id answers as deleted.
    for (let i = 0; i < 27; i++)
      expect((await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/g")).body.alreadyDeleted).toBe(false);
    expect((await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/g")).body.alreadyDeleted).toBe(true);
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots/g/sync", { body: { baseVersion: 1, data: {} } })).body.error
        .code,
    ).toBe("slot_deleted");
  });
});
