import { expect, test } from "bun:test";
import { type Answer, admin, call, newAccount } from "../helpers/api.ts";
import {
  type Deployment,
  type DistributedDeployment,
  startDistributed,
  startEmbedded,
} from "../helpers/deployments.ts";
import { type DeploymentName, forEachDeployment } from "../helpers/each-deployment.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";
import { startStallProxy } from "../helpers/stall-proxy.ts";

/**
 * docs/operating.md#lifecycle (Revocation): a revoked session or runtime key is refused by every gateway copy from the moment
 * the revoke answers, and a copy that cannot confirm holds up the answer only until it no longer trusts
 * its cache.
 */

type Copies = { d: Deployment; a: Deployment; b: Deployment; gatewayPids: number[]; dist?: DistributedDeployment };
const via = (d: Deployment, base: string): Deployment => ({
  ...d,
  request: (path, init) => fetch(`${base}${path}`, init),
});
const setups: Record<DeploymentName, () => Promise<Copies>> = {
  embedded: async () => {
    const d = await startEmbedded();
    return { d, a: d, b: d, gatewayPids: [] };
  },
  distributed: async () => {
    const d = await startDistributed({ copies: { gateway: 2 } });
    const gatewayPids = d.processes.filter((p) => p.name === "gateway").map((p) => p.pid);
    return { d, a: via(d, d.bases[0]!), b: via(d, d.bases[1]!), gatewayPids, dist: d };
  },
};

const rounds = 50;
const parallel = 10;
const verdict = (a: Answer) => `${a.status} ${a.body?.error?.code ?? "ok"}`;

const manyAccounts = { rateLimits: { accountCreationsPerIpPerMinute: 1_000 } };
forEachDeployment(
  "revocation on every gateway copy",
  { start: setups, tenant: manyAccounts },
  ({ name, setup: s, tenant }) => {
    test(`${rounds} rounds of (sign out through one copy, next request through the other), ${parallel} at once: none accepted`, async () => {
      const accepted = await inBatches(async (round, revoking, asked) => {
        const acc = await newAccount(revoking, tenant.key);
        const onPhone = { key: tenant.key, session: acc.session };
        // Both copies hold the session in their caches before it is revoked.
        for (const via of [asked, revoking])
          expect((await call(via, "GET", `/api/v1/accounts/${acc.accountId}`, onPhone)).status).toBe(200);
        const out = await call(revoking, "DELETE", `/api/v1/accounts/${acc.accountId}/sessions/current`, onPhone);
        expect(out.status).toBe(200);
        const next = await call(asked, "GET", `/api/v1/accounts/${acc.accountId}`, onPhone);
        return verdict(next) === "401 session_revoked" ? undefined : `round ${round}: ${verdict(next)}`;
      });
      expect(accepted).toEqual([]);
    });

    test(`${rounds} rounds of (revoke a runtime key through one copy, next request through the other), ${parallel} at once: none accepted`, async () => {
      const accepted = await inBatches(async (round, revoking, asked) => {
        const created = await admin(
          revoking,
          "POST",
          `/admin/v1/projects/${tenant.projectId}/environments/stage/runtime-keys`,
          { label: `r${round}` },
        );
        expect(created.status).toBe(201);
        const runtimeKey: string = created.body.runtimeKey;
        for (const via of [asked, revoking])
          expect((await call(via, "GET", "/api/v1/runtime-config", { key: runtimeKey })).status).toBe(200);
        expect((await admin(revoking, "DELETE", `/admin/v1/runtime-keys/${created.body.keyId}`)).status).toBe(200);
        const next = await call(asked, "GET", "/api/v1/runtime-config", { key: runtimeKey });
        return next.status === 401 ? undefined : `round ${round}: ${verdict(next)}`;
      });
      expect(accepted).toEqual([]);
    });

    /** Runs the rounds `parallel` at a time, copy A and copy B swapping roles each round; returns the accepted ones. */
    async function inBatches(
      round: (n: number, revoking: Deployment, asked: Deployment) => Promise<string | undefined>,
    ): Promise<string[]> {
      const accepted: string[] = [];
      for (let first = 0; first < rounds; first += parallel) {
        const batch = Array.from({ length: parallel }, (_, i) => first + i);
        const outcomes = await Promise.all(batch.map((n) => (n % 2 === 0 ? round(n, s.a, s.b) : round(n, s.b, s.a))));
        accepted.push(...outcomes.filter((o): o is string => o !== undefined));
      }
      return accepted;
    }

    if (name === "distributed") {
      test("a copy that stops confirming (SIGSTOP) holds the revoke only until it no longer trusts its cache; resumed, it refuses the session", async () => {
        const acc = await newAccount(s.a, tenant.key);
        const onPhone = { key: tenant.key, session: acc.session };
        const runtime = await admin(
          s.a,
          "POST",
          `/admin/v1/projects/${tenant.projectId}/environments/stage/runtime-keys`,
          { label: "stopped" },
        );
        const runtimeKey: string = runtime.body.runtimeKey;
        for (const via of [s.b, s.a]) {
          expect((await call(via, "GET", `/api/v1/accounts/${acc.accountId}`, onPhone)).status).toBe(200);
          expect((await call(via, "GET", "/api/v1/runtime-config", { key: runtimeKey })).status).toBe(200);
        }
        const stopped = s.gatewayPids[1]!;
        process.kill(stopped, "SIGSTOP");
        let answers: number[];
        let asked: Promise<Answer>[];
        let took = 0;
        const started = performance.now();
        try {
          // Answered (not the gateway's 504 after its bus timeout) while copy B cannot confirm.
          answers = [
            (await call(s.a, "DELETE", `/api/v1/accounts/${acc.accountId}/sessions/current`, onPhone)).status,
            (await admin(s.a, "DELETE", `/admin/v1/runtime-keys/${runtime.body.keyId}`)).status,
          ];
          took = Math.round(performance.now() - started);
          // Sent after the revokes answered, while B is still stopped: B finds them waiting when it resumes.
          asked = [
            call(s.b, "GET", `/api/v1/accounts/${acc.accountId}`, onPhone),
            call(s.b, "GET", "/api/v1/runtime-config", { key: runtimeKey }),
          ];
          await Bun.sleep(200);
        } finally {
          process.kill(stopped, "SIGCONT");
        }
        const [session, keyed] = await Promise.all(asked);
        console.log(`revokes answered with gateway B stopped: ${answers.join(",")} in ${took} ms for both`);
        expect(answers).toEqual([200, 200]);
        expect([verdict(session!), keyed!.status]).toEqual(["401 session_revoked", 401]);
      });
      test("a copy cut off from the bus (NATS stalled, HTTP served) refuses a revoked session and key sent to it after the revoke answered", async () => {
        const dist = s.dist!;
        const proxy = await startStallProxy(dist.processes.find((p) => p.name === "gateway")!.natsUrl);
        const port = freePort();
        dist.spawn("gateway", { PORT: String(port), NATS_URL: proxy.url });
        await waitForPort(port, 30_000, "gateway");
        const c = via(s.d, `http://127.0.0.1:${port}`);
        try {
          const acc = await newAccount(s.a, tenant.key);
          const onPhone = { key: tenant.key, session: acc.session };
          const runtime = await admin(
            s.a,
            "POST",
            `/admin/v1/projects/${tenant.projectId}/environments/stage/runtime-keys`,
            { label: "cut off" },
          );
          const runtimeKey: string = runtime.body.runtimeKey;
          for (let i = 0; i < 2; i++) {
            expect((await call(c, "GET", `/api/v1/accounts/${acc.accountId}`, onPhone)).status).toBe(200);
            expect((await call(c, "GET", "/api/v1/runtime-config", { key: runtimeKey })).status).toBe(200);
          }
          proxy.stall();
          const answers = [
            (await call(s.a, "DELETE", `/api/v1/accounts/${acc.accountId}/sessions/current`, onPhone)).status,
            (await admin(s.b, "DELETE", `/admin/v1/runtime-keys/${runtime.body.keyId}`)).status,
          ];
          expect(answers).toEqual([200, 200]);
          // Sent after the revokes answered, while copy C still cannot hear the bus.
          const asked = [
            call(c, "GET", `/api/v1/accounts/${acc.accountId}`, onPhone),
            call(c, "GET", "/api/v1/runtime-config", { key: runtimeKey }),
          ];
          await Bun.sleep(300);
          proxy.resume();
          const [session, keyed] = await Promise.all(asked);
          expect([verdict(session!), keyed!.status]).toEqual(["401 session_revoked", 401]);
        } finally {
          proxy.resume();
          dist.procs.at(-1)!.kill();
          proxy.stop();
        }
      });
    }
  },
);
