import { expect, test } from "bun:test";
import { type CallOptions, call, newAccount, newTenant } from "../helpers/api.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import type { Deployment } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

/**
 * Guessing transfer codes (docs/api-rules.md#transfer-codes): 10 failed attempts per client (an IPv4
 * address or an IPv6 /64) in 10 minutes, the runtime key's 60 a minute for clients that have failed,
 * and a client's first attempt never refused by the key's count. Two gateway and two transfer copies
 * in the distributed deployment: every count is one across copies.
 */

const consumePath = "/api/v1/account-transfer-codes/consume";
/** A client address of its own per test, named through the trusted loopback proxy. */
const newClient = () => `10.${Array.from(crypto.getRandomValues(new Uint8Array(3))).join(".")}`;

forEachDeployment(
  "guessing transfer codes",
  { distributed: { copies: { gateway: 2, transfer: 2 } }, tenant: true },
  ({ setup: s, tenant }) => {
    const consume = (
      transferCode: unknown,
      o: CallOptions & { ip?: string; via?: Deployment; withKey?: string } = {},
    ) =>
      call(o.via ?? s.d, "POST", consumePath, {
        key: o.withKey ?? tenant.key,
        headers: { "x-forwarded-for": o.ip ?? newClient() },
        body: { transferCode, ...(o.body as object) },
      });

    test("brute force: the 11th wrong code from one client is 429 and blocks the right code; another client is not blocked; gateway copies share the count", async () => {
      const a = await newAccount(s.d, tenant.key);
      const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
      const attacker = newClient();
      await awayFromWindowEnd(600);
      for (let i = 0; i < 10; i++) {
        const wrong = await consume(`ZZZZZ-ZZZ${String(i).padStart(2, "0")}`, {
          ip: attacker,
          via: i % 2 ? s.other : s.d,
        });
        expect([i, wrong.status, wrong.body.error.code]).toEqual([i, 400, "transfer_code_invalid"]);
      }
      const eleventh = await consume("ZZZZZ-ZZZZZ", { ip: attacker, via: s.other });
      expect(eleventh.status).toBe(429);
      expect(eleventh.body.error).toMatchObject({
        code: "transfer_code_rate_limited",
        details: { limit: 10, windowSeconds: 600, scope: "client_ip" },
      });
      const retryAfter = Number(eleventh.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect(eleventh.headers.get("ratelimit-limit")).toBe("10");
      expect(eleventh.headers.get("ratelimit-remaining")).toBe("0");
      expect(eleventh.headers.get("ratelimit-reset")).toBe(String(retryAfter));

      expect((await consume(transferCode, { ip: attacker })).status).toBe(429);
      const honest = await consume(transferCode, { ip: newClient() });
      expect(honest.status).toBe(200);
    });

    test("failed attempts are also limited per runtime key: a client that has failed waits once the key has 60 in a minute", async () => {
      const t = await newTenant(s.d);
      await awayFromWindowEnd(60);
      const clients = Array.from({ length: 60 }, newClient);
      const answers = [];
      for (let i = 0; i < 60; i++)
        answers.push(await consume(`YYYYY-YYY${String(i).padStart(2, "0")}`, { withKey: t.key, ip: clients[i] }));
      expect(answers.every((x) => x.body.error.code === "transfer_code_invalid")).toBe(true);
      const again = await consume("YYYYY-YYYZZ", { withKey: t.key, ip: clients[0], via: s.other });
      expect(again.status).toBe(429);
      expect(again.body.error.details).toMatchObject({ limit: 60, windowSeconds: 60, scope: "runtime_key" });
    });

    test("500 concurrent wrong guesses from one client: exactly 10 are looked up, the other 490 are 429", async () => {
      const attacker = newClient();
      await awayFromWindowEnd(600, 30);
      const guesses = Array.from({ length: 500 }, (_, i) =>
        consume(`ZZZZZ-${String(i).padStart(5, "0")}`, { ip: attacker, via: i % 2 ? s.other : s.d }),
      );
      const codes = (await Promise.all(guesses)).map((x) => x.body.error.code);
      expect(codes.filter((c) => c === "transfer_code_invalid")).toHaveLength(10);
      expect(codes.filter((c) => c === "transfer_code_rate_limited")).toHaveLength(490);
    });

    test("80 clients guessing wrong 3 times each, side by side: each client's first is looked up, the rest only within the key's 60", async () => {
      const t = await newTenant(s.d);
      const clients = Array.from({ length: 80 }, newClient);
      await awayFromWindowEnd(60, 30);
      const guess = (ip: string, n: number, i: number) =>
        consume(`YYYYY-Y${String(n * 3 + i).padStart(4, "0")}`, { ip, withKey: t.key, via: i % 2 ? s.other : s.d });
      const threeInTurn = async (ip: string, n: number) => [
        await guess(ip, n, 0),
        await guess(ip, n, 1),
        await guess(ip, n, 2),
      ];
      const codes = (await Promise.all(clients.map(threeInTurn))).flat().map((x) => x.body.error.code);
      // A client's first guess in its window is always looked up (it may be a player with the right
      // code); its others take seats of the key's 60, which the first guesses may have taken already.
      expect(codes.filter((c) => c !== "transfer_code_invalid" && c !== "transfer_code_rate_limited")).toEqual([]);
      const lookedUp = codes.filter((c) => c === "transfer_code_invalid").length;
      expect(lookedUp).toBeGreaterThanOrEqual(80);
      expect(lookedUp).toBeLessThanOrEqual(140);
    });

    test("60 addresses guessing wrong spend the key's minute, yet a fresh address with the right code gets in; each address costs a guess", async () => {
      const t = await newTenant(s.d);
      const a = await newAccount(s.d, t.key);
      const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
      const attackers = Array.from({ length: 60 }, newClient);
      await awayFromWindowEnd(60, 30);
      const guess = (ip: string, n: number, via: Deployment = s.d) =>
        consume(`WWWWW-W${String(n).padStart(4, "0")}`, { ip, withKey: t.key, via });
      const first = await Promise.all(attackers.map((ip, n) => guess(ip, n, n % 2 ? s.other : s.d)));
      expect(first.map((x) => x.body.error.code)).toEqual(attackers.map(() => "transfer_code_invalid"));
      // The key's minute is spent: an address that has guessed wrong waits for the next minute.
      const again = await guess(attackers[0]!, 100, s.other);
      expect([again.status, again.body.error.details?.scope]).toEqual([429, "runtime_key"]);

      const honest = await consume(transferCode, { ip: newClient(), withKey: t.key, via: s.other });
      expect([honest.status, honest.body.accountId]).toEqual([200, a.accountId]);

      // Guessing stays bounded: past the key's minute, one guess per address that has not yet guessed
      // in its window, and that address's next guesses are refused, on either gateway copy.
      const fresh = Array.from({ length: 20 }, newClient);
      const threeInTurn = async (ip: string, n: number) => [
        await guess(ip, 200 + n * 3),
        await guess(ip, 201 + n * 3, s.other),
        await guess(ip, 202 + n * 3),
      ];
      const codes = (await Promise.all(fresh.map(threeInTurn))).flat().map((x) => x.body.error.code);
      expect(codes.filter((c) => c === "transfer_code_invalid")).toHaveLength(20);
      expect(codes.filter((c) => c === "transfer_code_rate_limited")).toHaveLength(40);
      // Side by side, one address's attempts find each other in its count: at most one is its first.
      const side = newClient();
      const sideBySide = await Promise.all([0, 1, 2, 3, 4].map((i) => guess(side, 400 + i, i % 2 ? s.other : s.d)));
      expect(sideBySide.filter((x) => x.status === 400).length).toBeLessThanOrEqual(1);
      expect(sideBySide.filter((x) => x.status === 429).length).toBeGreaterThanOrEqual(4);
      const repeats = await Promise.all(attackers.map((ip, n) => guess(ip, 300 + n, n % 2 ? s.other : s.d)));
      expect(repeats.every((x) => x.status === 429)).toBe(true);
    });

    test("two IPv6 addresses in one /64 are one client: they share its 10 failed attempts; another /64 is not limited", async () => {
      const [x, y] = Array.from(crypto.getRandomValues(new Uint16Array(2)), (n) => n.toString(16));
      const net = `2001:db8:${x}:${y}`;
      await awayFromWindowEnd(600, 30);
      for (let i = 0; i < 10; i++) {
        const wrong = await consume(`VVVVV-VVV${String(i).padStart(2, "0")}`, {
          ip: `${net}::${(i + 1).toString(16)}`,
          via: i % 2 ? s.other : s.d,
        });
        expect([i, wrong.status, wrong.body.error.code]).toEqual([i, 400, "transfer_code_invalid"]);
      }
      const sameNet = await consume("VVVVV-VVVZZ", { ip: `${net}:ffff:ffff:ffff:ffff`, via: s.other });
      expect([sameNet.status, sameNet.body.error.details?.scope]).toEqual([429, "client_ip"]);
      const written = await consume("VVVVV-VVVZZ", { ip: `2001:0DB8:${x.padStart(4, "0")}:${y}:0:0:0:abc`, via: s.d });
      expect([written.status, written.body.error.details?.scope]).toEqual([429, "client_ip"]);
      const otherNet = await consume("VVVVV-VVVZZ", {
        ip: `2001:db8:${x}:${(Number.parseInt(y!, 16) ^ 1).toString(16)}::1`,
      });
      expect([otherNet.status, otherNet.body.error.code]).toEqual([400, "transfer_code_invalid"]);
    });

    test("a burst of wrong guesses from a few clients locks out neither a fresh client with the right code nor another project", async () => {
      const t = await newTenant(s.d);
      const other = await newTenant(s.d);
      const a = await newAccount(s.d, t.key);
      const b = await newAccount(s.d, other.key);
      const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
      const elsewhere = (await b.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body.transferCode;
      const attackers = Array.from({ length: 6 }, newClient);
      await awayFromWindowEnd(60, 30);
      const guess = (ip: string, n: number, i: number) =>
        consume(`XXXXX-XX${n}${String(i).padStart(2, "0")}`, { ip, withKey: t.key });
      const burst = attackers.flatMap((ip, n) => Array.from({ length: 20 }, (_, i) => guess(ip, n, i)));
      const codes = (await Promise.all(burst)).map((x) => x.body.error.code);
      expect(codes.filter((c) => c === "transfer_code_rate_limited").length).toBeGreaterThanOrEqual(60);
      // Every attacker is at its own limit here; the same clients are not limited in another project.
      expect((await consume("XXXXX-XXXXX", { ip: attackers[0], withKey: t.key })).body.error.code).toBe(
        "transfer_code_rate_limited",
      );
      const theirs = await consume(elsewhere, { ip: attackers[0], withKey: other.key, via: s.other });
      expect([theirs.status, theirs.body.accountId]).toEqual([200, b.accountId]);
      const honest = await consume(transferCode, { withKey: t.key, via: s.other });
      expect([honest.status, honest.body.accountId]).toEqual([200, a.accountId]);
    });
  },
);
