import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { metrics } from "../../shared/observe/metrics.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir, trackChild } from "../helpers/infra.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";
import { rawGet } from "../helpers/raw-http.ts";
import { haproxyBin } from "../helpers/tools.ts";

// The distributed deployment's container files (infra/), read as files: the topology compose would
// start, the configs each container mounts, and the image. No Docker engine is needed.

const root = join(import.meta.dir, "../..");
const infra = join(root, "infra");
const read = (path: string) => readFileSync(join(root, path), "utf8");

type Healthcheck = { test?: string[] | string; interval?: string; disable?: boolean };
type Service = {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string>;
  restart?: string;
  healthcheck?: Healthcheck;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  container_name?: string;
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  profiles?: string[];
  stop_grace_period?: string;
};
type Compose = {
  services: Record<string, Service>;
  networks?: Record<string, { ipam?: { config?: { subnet?: string; ip_range?: string }[] } }>;
  volumes?: Record<string, unknown>;
};

const composeText = read("infra/compose.yaml");
const compose = Bun.YAML.parse(composeText) as Compose;
const services = compose.services;

/** The compose services that run our code: `bun services/standalone.ts <name>` and `bun services/gateway/main.ts`. */
const appServices = Object.entries(services).filter(([, s]) => s.command?.[0] === "bun");
const ofName = (prefix: string) =>
  Object.keys(services)
    .filter((n) => new RegExp(`^${prefix}\\d+$`).test(n))
    .sort();

// --- tiny parsers ---------------------------------------------------------------------------------------

/** The NATS config keys this deployment depends on (server_name, jetstream, cluster routes). */
function parseNatsConf(text: string) {
  const body = text
    .split("\n")
    .map((l) => l.replace(/(^|\s)(#|\/\/).*$/, ""))
    .join("\n");
  const block = (name: string) => {
    const start = new RegExp(`(^|\\n)\\s*${name}\\s*[:=]?\\s*\\{`).exec(body);
    if (!start) return undefined;
    let depth = 0;
    for (let i = start.index + start[0].length - 1; i < body.length; i++) {
      if (body[i] === "{") depth++;
      if (body[i] === "}" && --depth === 0) return body.slice(start.index + start[0].length, i);
    }
    return undefined;
  };
  const cluster = block("cluster");
  const routesText = cluster ? /routes\s*[:=]?\s*\[([^\]]*)\]/.exec(cluster)?.[1] : undefined;
  return {
    serverName: /(^|\n)\s*server_name\s*[:=]\s*"?([\w.-]+)"?/.exec(body)?.[2],
    jetstream: block("jetstream"),
    storeDir: /store_dir\s*[:=]\s*"?([^\s"]+)"?/.exec(block("jetstream") ?? "")?.[1],
    clusterName: /(^|\n)\s*name\s*[:=]\s*"?([\w.-]+)"?/.exec(cluster ?? "")?.[2],
    routes: (routesText ?? "").split(/[\s,]+/).filter(Boolean),
  };
}

/** Runs infra/mongo/init-replica-set.js against a fake `rs`, returning the configs it initiated. */
function runInitScript(alreadyInitiated: boolean) {
  const initiated: { _id: string; members: { _id: number; host: string }[] }[] = [];
  let state = alreadyInitiated;
  const rs = {
    status() {
      if (!state)
        throw Object.assign(new Error("no replset config has been received"), {
          code: 94,
          codeName: "NotYetInitialized",
        });
      return { ok: 1, members: [{ name: "mongo1:27017", stateStr: "PRIMARY" }] };
    },
    initiate(config: (typeof initiated)[number]) {
      initiated.push(config);
      state = true;
      return { ok: 1 };
    },
  };
  const quit = (code: number) => {
    throw new Error(`quit(${code})`);
  };
  runInNewContext(read("infra/mongo/init-replica-set.js"), { rs, print: () => {}, sleep: () => {}, quit, Date, JSON });
  return initiated;
}

const haproxyCfg = read("infra/haproxy/haproxy.cfg");
const envExample = read("infra/.env.example");
const dockerfile = read("infra/Dockerfile");
const natsServer =
  Bun.which("nats-server") ?? (existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : undefined);
// One of the test command's tools (scripts/ensure-test-tools.ts): missing, these tests fail, never skip.
const haproxy = haproxyBin();
/** One section of the HAProxy config, header line included, up to the next unindented line. */
/** A certificate volume as the proxy mounts it: one PEM file, a self-signed certificate for 127.0.0.1 then its key. */
function certificateVolume(): string {
  const dir = tempDir("haproxy-certs");
  const [cert, key] = [join(dir, "cert.tmp"), join(dir, "key.tmp")];
  const args = [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=savepoint",
  ];
  const made = Bun.spawnSync([
    "openssl",
    ...args,
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    "-keyout",
    key,
    "-out",
    cert,
  ]);
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  const certs = join(dir, "certs");
  mkdirSync(certs);
  writeFileSync(join(certs, "savepoint.pem"), readFileSync(cert, "utf8") + readFileSync(key, "utf8"));
  return certs;
}

/** The public frontend as written, its binds moved to free loopback ports, in front of one gateway. */
function liveProxy(gatewayPort: number, port: number, tlsPort: number, certs: string): string {
  const front = haproxySection("frontend http")
    .replace(/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${port}`)
    .replace(
      /^(\s*)bind :8443 ssl crt \/usr\/local\/etc\/haproxy\/certs\//m,
      `$1bind 127.0.0.1:${tlsPort} ssl crt ${certs}/`,
    );
  const defaults = "defaults\n    mode http\n    timeout connect 3s\n    timeout client 10s\n    timeout server 10s\n";
  return `global\n    maxconn 100\n${defaults}${front}\nbackend gateways\n    server gateway 127.0.0.1:${gatewayPort}\n`;
}

const haproxySection = (header: string) =>
  new RegExp(`(^|\\n)(${header}\\n[\\s\\S]*?)(?=\\n\\S|$)`).exec(haproxyCfg)?.[2] ?? "";

// --- MongoDB --------------------------------------------------------------------------------------------

describe("infra: MongoDB replica set", () => {
  const members = ofName("mongo");

  test("three members, each mongod in replica set rs0 with its own volume", () => {
    expect(members).toEqual(["mongo1", "mongo2", "mongo3"]);
    const volumes = new Set<string>();
    for (const name of members) {
      const s = services[name]!;
      expect(s.image).toMatch(/^mongo:7(\.|$)/);
      const cmd = s.command ?? [];
      expect(cmd[0]).toBe("mongod");
      expect(cmd[cmd.indexOf("--replSet") + 1]).toBe("rs0");
      expect(cmd).toContain("--bind_ip_all");
      const dataVolume = (s.volumes ?? []).find((v) => v.endsWith(":/data/db"))?.split(":")[0];
      expect(dataVolume).toBeDefined();
      expect(compose.volumes).toHaveProperty(dataVolume!);
      volumes.add(dataVolume!);
    }
    expect(volumes.size).toBe(3);
  });

  test("an init step initiates rs0 once, with all three members, after they are healthy", () => {
    const init = services["mongo-init"]!;
    expect(init.command?.join(" ")).toContain("init-replica-set.js");
    expect(init.volumes?.some((v) => v.startsWith("./mongo/init-replica-set.js:"))).toBe(true);
    for (const m of members) expect(init.depends_on?.[m]?.condition).toBe("service_healthy");

    const [config, ...more] = runInitScript(false);
    expect(more).toEqual([]);
    expect(config!._id).toBe("rs0");
    expect(config!.members.map((m) => m.host).sort()).toEqual(members.map((m) => `${m}:27017`));
    expect(new Set(config!.members.map((m) => m._id)).size).toBe(3);
    // Run again on an initiated set: nothing is re-initiated.
    expect(runInitScript(true)).toEqual([]);
  });

  test("the apps connect to all three members of rs0 and wait for the init step", () => {
    for (const [name, s] of appServices) {
      // A seed list (host,host,host) is no WHATWG URL: split it by hand.
      const [, hosts, query] = /^mongodb:\/\/([^/?]+)\/[^?]*\?(.*)$/.exec(s.environment!.MONGODB_URL!) ?? [];
      expect(hosts?.split(",").sort(), name).toEqual(members.map((m) => `${m}:27017`));
      expect(new URLSearchParams(query).get("replicaSet"), name).toBe("rs0");
      expect(s.depends_on?.["mongo-init"]?.condition, name).toBe("service_completed_successfully");
    }
  });
});

// --- NATS -----------------------------------------------------------------------------------------------

describe("infra: NATS cluster", () => {
  const nodes = ofName("nats");
  const confOf = (node: string) => {
    const mount = (services[node]!.volumes ?? []).find((v) => v.includes(":/etc/nats/nats.conf"));
    expect(mount, node).toBeDefined();
    return join(infra, mount!.split(":")[0]!);
  };

  test("three nodes, each with its own config file and data volume", () => {
    expect(nodes).toEqual(["nats1", "nats2", "nats3"]);
    expect(new Set(nodes.map(confOf)).size).toBe(3);
    for (const node of nodes) {
      const s = services[node]!;
      expect(s.image).toMatch(/^nats:2\.10/);
      expect(s.command?.join(" ")).toContain("/etc/nats/nats.conf");
      const data = (s.volumes ?? []).find((v) => /^[\w-]+:\/data$/.test(v))?.split(":")[0];
      expect(compose.volumes, node).toHaveProperty(data!);
    }
  });

  test("each node has JetStream, its own server_name, and routes to the two others", () => {
    const names = new Set<string>();
    for (const node of nodes) {
      const conf = parseNatsConf(readFileSync(confOf(node), "utf8"));
      expect(conf.serverName, node).toBe(node);
      names.add(conf.serverName!);
      expect(conf.jetstream, node).toBeDefined();
      expect(conf.storeDir, node).toStartWith("/data");
      expect(conf.clusterName, node).toBe("savepoint");
      const hosts = conf.routes.map((r) => new URL(r).host).sort();
      expect(hosts, node).toEqual(nodes.filter((n) => n !== node).map((n) => `${n}:6222`));
    }
    expect(names.size).toBe(3);
  });

  test("each config passes nats-server's own check (nats-server -c FILE -t)", () => {
    expect(natsServer, "nats-server not found on PATH or at /usr/sbin").toBeDefined();
    for (const node of nodes) {
      const r = Bun.spawnSync([natsServer!, "-c", confOf(node), "-t"], { stdout: "pipe", stderr: "pipe" });
      expect(`${r.stdout}${r.stderr}`, node).toContain("is valid");
      expect(r.exitCode, node).toBe(0);
    }
  });

  test("the apps list all three nodes and wait for them to be healthy", () => {
    for (const [name, s] of appServices) {
      const urls = s.environment!.NATS_URL!.split(",").map((u) => new URL(u.trim()));
      expect(urls.map((u) => u.host).sort(), name).toEqual(nodes.map((n) => `${n}:4222`));
      for (const n of nodes) expect(s.depends_on?.[n]?.condition, name).toBe("service_healthy");
    }
  });
});

// --- gateway and proxy ----------------------------------------------------------------------------------

describe("infra: gateway and proxy", () => {
  const gateway = services.gateway!;
  const proxy = services.proxy!;

  test("two gateway replicas, found by the proxy under the compose name gateway:8080", () => {
    expect(gateway.deploy?.replicas).toBe(2);
    expect(gateway.command).toEqual(["bun", "services/gateway/main.ts"]);
    expect(proxy.image).toMatch(/^haproxy:/);
    expect(proxy.volumes?.some((v) => v.startsWith("./haproxy/haproxy.cfg:"))).toBe(true);
    const backend = /\nbackend gateways\n([\s\S]*?)(\n\S|$)/.exec(haproxyCfg)?.[1] ?? "";
    expect(backend).toMatch(/^\s*server-template \S+ \d+ gateway:8080 check\s*$/m);
    expect(backend).toMatch(/^\s*default-server .*\bresolvers docker\b/m);
    expect(backend).toMatch(/http-check send meth GET uri \/readyz/);
    expect(haproxyCfg).toMatch(/^\s*retry-on conn-failure\s*$/m);
    expect(haproxyCfg).toMatch(/^\s*option forwardfor\b/m);
  });

  test("only the proxy publishes a port: 8080, and the gateways trust its fixed address alone", () => {
    for (const [name, s] of Object.entries(services)) {
      if (name === "proxy" || s.profiles?.includes("monitoring")) continue;
      expect(s.ports, name).toBeUndefined();
    }
    // The admin frontend only on the host's loopback.
    const published = [
      "${SAVEPOINT_HTTPS_PORT:-8443}:8443",
      "${SAVEPOINT_HTTP_PORT:-8080}:8080",
      "127.0.0.1:${SAVEPOINT_ADMIN_HTTP_PORT:-9000}:9000",
    ];
    expect(proxy.ports).toEqual(published);
    expect(haproxyCfg).toMatch(/^\s*bind :8080\s*$/m);

    const networks = proxy.networks as Record<string, { ipv4_address?: string }>;
    const [[net, { ipv4_address: proxyIp }]] = Object.entries(networks) as [[string, { ipv4_address: string }]];
    expect(gateway.environment?.SAVEPOINT_TRUSTED_PROXIES).toBe(proxyIp);
    const ipam = compose.networks?.[net]?.ipam?.config?.[0];
    const inCidr = (ip: string, cidr: string) => {
      const [base, bits] = cidr.split("/");
      const n = (a: string) => a.split(".").reduce((acc, x) => acc * 256 + Number(x), 0);
      const size = 2 ** (32 - Number(bits));
      return Math.floor(n(ip) / size) === Math.floor(n(base!) / size);
    };
    expect(inCidr(proxyIp, ipam!.subnet!)).toBe(true);
    // Outside the range Docker hands out, so no other container can take it first.
    expect(inCidr(proxyIp, ipam!.ip_range!)).toBe(false);
  });

  test("the gateways serve the admin API and /metrics on 9091 only, reached through the proxy's loopback frontend", () => {
    expect(gateway.environment?.SAVEPOINT_ADMIN_ADDRESS).toBe("0.0.0.0:9091");
    expect(gateway.expose).toEqual(["8080", "9091"]);
    expect(haproxySection("frontend admin")).toMatch(/^\s*bind :9000\s*$/m);
    expect(haproxySection("frontend admin")).toMatch(/^\s*default_backend gateways-admin\s*$/m);
    expect(haproxySection("backend gateways-admin")).toMatch(/^\s*server-template \S+ \d+ gateway:9091 check\s*$/m);
  });

  test("the public frontend judges the decoded path and refuses dot segments, backslashes, /metrics, /admin and /console", () => {
    const front = haproxySection("frontend http");
    const rules = front.split("\n").filter((l) => /^\s*http-request return\b/.test(l));
    const refusesDots = (l: string) =>
      l.includes("path,url_dec -m reg '(^|/)\\.\\.?(/|$)'") && l.includes("path,url_dec -m sub '\\'");
    expect(rules.some((l) => /status 400\b/.test(l) && refusesDots(l))).toBe(true);
    expect(
      rules.some(
        (l) => /status 404\b/.test(l) && l.includes("path,url_dec -i -m reg '^/+(metrics|admin|console)(/|$)'"),
      ),
    ).toBe(true);
    // The raw path alone is never the test: that is what "/metrics/" and "/x/../metrics" walked past.
    expect(front).not.toMatch(/\{\s*path\s+\/metrics\s*\}/);
  });

  test("the TLS front serves the certificate volume, sends plain HTTP to HTTPS unless allowed, and adds HSTS", () => {
    const front = haproxySection("frontend http");
    expect(front).toMatch(/^\s*bind :8443 ssl crt \/usr\/local\/etc\/haproxy\/certs\/ /m);
    expect(proxy.volumes).toContain("${SAVEPOINT_TLS_DIR:-./haproxy/certs}:/usr/local/etc/haproxy/certs:ro");
    expect(front).toMatch(
      /^\s*http-request redirect scheme https code 308 unless \{ ssl_fc \} \|\| \{ env\(SAVEPOINT_PLAIN_HTTP\) -m str allow \}$/m,
    );
    expect(front).toMatch(
      /^\s*http-response set-header Strict-Transport-Security "max-age=31536000" if \{ ssl_fc \}$/m,
    );
    expect(proxy.environment?.SAVEPOINT_PLAIN_HTTP).toBe("${SAVEPOINT_PLAIN_HTTP:-redirect}");
  });

  test("the config passes haproxy's own check (haproxy -c)", () => {
    const certs = certificateVolume();
    const file = join(tempDir("haproxy-check"), "haproxy.cfg");
    writeFileSync(file, haproxyCfg.replaceAll("/usr/local/etc/haproxy/certs/", `${certs}/`));
    const r = Bun.spawnSync([haproxy!, "-c", "-f", file], { stdout: "pipe", stderr: "pipe" });
    expect(`${r.stdout}${r.stderr}`).toContain("Configuration file is valid");
    expect(r.exitCode).toBe(0);
  });

  test("live: the public frontend in front of a real gateway keeps /metrics, the admin API and the console out however they are spelled", async () => {
    const d = await startEmbedded();
    const gatewayPort = Number(new URL((await d.request("/healthz")).url).port);
    const port = freePort();
    const file = join(tempDir("haproxy"), "haproxy.cfg");
    // The frontend as written, on free ports, in front of one gateway that serves everything on one port.
    writeFileSync(file, liveProxy(gatewayPort, port, freePort(), certificateVolume()));
    // Plain HTTP allowed, as behind a TLS balancer: the same rules hold on it.
    const proc = Bun.spawn([haproxy!, "-db", "-f", file], {
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, SAVEPOINT_PLAIN_HTTP: "allow" },
    });
    trackChild(proc);
    try {
      await waitForPort(port, 10_000, "haproxy");
      const paths = [
        "/metrics",
        "/metrics/",
        "//metrics",
        "/METRICS",
        "/./metrics",
        "/x/../metrics",
        "/%2e/metrics",
        "/x/%2E%2E/metrics",
        "/x\\..\\metrics",
        "/%6detrics",
        "/admin/v1/dead-letters",
        "/x/../admin/v1/dead-letters",
        "/%61dmin/v1/dead-letters",
        "/Admin/v1/dead-letters",
        "/console",
        "/console/sign-in",
        "//console/sign-in",
        "/%63onsole/sign-in",
        "/Console/sign-in",
        "/x/../console/sign-in",
        "/console/assets/console.css",
      ];
      for (const path of paths) {
        const answer = await rawGet(port, path, "savepoint.example", {
          authorization: "Bearer test-admin-token-0123456789",
        });
        const leaked = ["savepoint_http_requests_total", "deadLetters", "Savepoint console", "sp_console"].some(
          (s) => answer.body.includes(s) || answer.head.includes(s),
        );
        expect([path, [400, 404].includes(answer.status), leaked]).toEqual([path, true, false]);
      }
      // Everything else passes: the gateway's own answers.
      expect((await rawGet(port, "/healthz", "savepoint.example")).status).toBe(200);
      expect((await rawGet(port, "/api/v1/accounts", "savepoint.example")).status).toBe(405);
    } finally {
      proc.kill();
      await proc.exited;
      await d.stop();
    }
  }, 60_000);

  test("live: the TLS front answers HTTPS with HSTS and tells the gateway so; plain HTTP is redirected to it", async () => {
    const d = await startEmbedded({ SAVEPOINT_TRUSTED_PROXIES: "127.0.0.1" });
    const gatewayPort = Number(new URL((await d.request("/healthz")).url).port);
    const [port, tlsPort] = [freePort(), freePort()];
    const certs = certificateVolume();
    const file = join(tempDir("haproxy"), "haproxy.cfg");
    writeFileSync(file, liveProxy(gatewayPort, port, tlsPort, certs));
    const proc = Bun.spawn([haproxy!, "-db", "-f", file], {
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, SAVEPOINT_PLAIN_HTTP: "" },
    });
    trackChild(proc);
    try {
      await waitForPort(tlsPort, 10_000, "haproxy");
      const ca = readFileSync(join(certs, "savepoint.pem"), "utf8").split("-----BEGIN PRIVATE KEY-----")[0]!;
      const health = await fetch(`https://127.0.0.1:${tlsPort}/healthz`, { tls: { ca } });
      expect(health.status).toBe(200);
      expect(health.headers.get("strict-transport-security")).toBe("max-age=31536000");
      // The rules of the public port hold over TLS too.
      expect((await fetch(`https://127.0.0.1:${tlsPort}/metrics`, { tls: { ca } })).status).toBe(404);
      const plain = await rawGet(port, "/api/v1/accounts", "savepoint.example");
      expect(plain.status).toBe(308);
      expect(plain.head).toMatch(/\r\nlocation: https:\/\/savepoint\.example\/api\/v1\/accounts\r\n/i);
    } finally {
      proc.kill();
      await proc.exited;
      await d.stop();
    }
  }, 60_000);

  test("the gateway's health check asks /readyz on 8080; the proxy waits for a healthy gateway", () => {
    const check = JSON.stringify(gateway.healthcheck?.test);
    expect(check).toContain("/readyz");
    expect(check).toContain("8080");
    expect(gateway.environment?.PORT).toBe("8080");
    expect(proxy.depends_on?.gateway?.condition).toBe("service_healthy");
  });
});

// --- every service --------------------------------------------------------------------------------------

describe("infra: services", () => {
  test("every service folder has a compose service running it: the gateway its own main.ts, the others the standalone entry", () => {
    const folders = readdirSync(join(root, "services"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.length).toBeGreaterThanOrEqual(7);
    for (const name of folders) {
      const command =
        name === "gateway" ? ["bun", "services/gateway/main.ts"] : ["bun", "services/standalone.ts", name];
      expect(services[name]?.command, name).toEqual(command);
    }
  });

  test("every service has a health check and a restart policy", () => {
    for (const [name, s] of Object.entries(services)) {
      expect(s.restart, name).toMatch(/^(unless-stopped|always|on-failure(:\d+)?)$/);
      expect(s.healthcheck?.disable, name).not.toBe(true);
      expect(Array.isArray(s.healthcheck?.test) && s.healthcheck!.test.length > 1, name).toBe(true);
    }
  });

  test("the app services can be scaled, drain on SIGTERM and answer /readyz on SAVEPOINT_METRICS_PORT", () => {
    expect(appServices.length).toBeGreaterThanOrEqual(7);
    for (const [name, s] of appServices) {
      expect(s.container_name, name).toBeUndefined();
      expect(s.ports, name).toBeUndefined();
      const nets = s.networks;
      if (nets && !Array.isArray(nets))
        for (const cfg of Object.values(nets)) expect(cfg?.ipv4_address, name).toBeUndefined();
      expect(s.restart, name).toBe("unless-stopped");
      expect(s.stop_grace_period, name).toBe("30s");
      expect(s.build?.dockerfile, name).toBe("infra/Dockerfile");
      expect(s.environment?.SAVEPOINT_METRICS_PORT, name).toBe("9091");
      if (name !== "gateway") {
        const check = JSON.stringify(s.healthcheck?.test);
        expect(check, name).toContain("/readyz");
        expect(check, name).toContain("SAVEPOINT_METRICS_PORT");
      }
    }
  });

  test("Prometheus (monitoring profile) scrapes every app service", () => {
    const prometheus = services.prometheus!;
    expect(prometheus.profiles).toEqual(["monitoring"]);
    const config = Bun.YAML.parse(read("infra/prometheus/prometheus.yml")) as {
      scrape_configs: { dns_sd_configs?: { names: string[]; port: number }[] }[];
    };
    const scraped = new Map<string, number>();
    for (const job of config.scrape_configs)
      for (const sd of job.dns_sd_configs ?? []) for (const n of sd.names) scraped.set(n, sd.port);
    for (const [name] of appServices) expect(scraped.get(name), name).toBe(9091);
  });

  test("Prometheus loads the alert rules, and each rule names only series the processes export", () => {
    const config = Bun.YAML.parse(read("infra/prometheus/prometheus.yml")) as { rule_files?: string[] };
    expect(config.rule_files).toEqual(["alerts.yml"]);
    expect(services.prometheus!.volumes).toContain("./prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro");
    const rules = (
      Bun.YAML.parse(read("infra/prometheus/alerts.yml")) as { groups: { rules: { alert: string; expr: string }[] }[] }
    ).groups.flatMap((g) => g.rules);
    const alerts = rules.map((r) => r.alert);
    for (const named of ["SavepointIdempotencyCapReached", "SavepointServerErrors", "SavepointDatabaseDown"])
      expect(alerts).toContain(named);
    const exported = new Set(Object.values(metrics).map((m) => m.name));
    for (const r of rules)
      for (const [series] of r.expr.matchAll(/\b(?:savepoint|process)_[a-z_]+/g)) {
        const base = series.replace(/_(bucket|count|sum)$/, "");
        expect(exported.has(series) || exported.has(base), `${r.alert}: ${series}`).toBe(true);
      }
  });

  test("the secrets are required, and every ${VAR} compose reads is in .env.example", () => {
    const env = appServices[0]![1].environment!;
    for (const secret of ["SAVEPOINT_ADMIN_TOKEN", "SAVEPOINT_TRANSFER_SECRET", "SAVEPOINT_LINK_SECRET"]) {
      expect(env[secret], secret).toMatch(new RegExp(`^\\$\\{${secret}:\\?.+\\}$`));
    }
    const used = new Set([...composeText.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
    expect(used.size).toBeGreaterThan(5);
    const listed = new Set([...envExample.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]!));
    for (const v of used) expect(listed.has(v), `${v} is not in infra/.env.example`).toBe(true);
  });
});

// --- image ----------------------------------------------------------------------------------------------

describe("infra: Dockerfile", () => {
  const lines = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stages: string[][] = [];
  for (const l of lines) {
    if (/^FROM\s/i.test(l)) stages.push([l]);
    else stages.at(-1)?.push(l);
  }
  const runtime = stages.at(-1) ?? [];

  test("the runtime stage is Bun, as package.json pins it, and runs as a non-root user", () => {
    const pinned = JSON.parse(read("package.json")).dependencies.bun as string;
    expect(dockerfile).toMatch(new RegExp(`^ARG BUN_VERSION=${pinned.replace(/\./g, "\\.")}$`, "m"));
    expect(runtime[0]).toMatch(/^FROM oven\/bun:\$\{BUN_VERSION\}/);
    const user = runtime
      .filter((l) => /^USER\s/i.test(l))
      .at(-1)
      ?.split(/\s+/)[1];
    expect(user).toBeDefined();
    expect(["root", "0", "0:0", "root:root"]).not.toContain(user!);
    expect(runtime).toContain("ENV NODE_ENV=production");
    expect(runtime.some((l) => /^STOPSIGNAL SIGTERM$/.test(l))).toBe(true);
    expect(runtime.some((l) => /^EXPOSE .*\b8080\b/.test(l) && /\b9091\b/.test(l))).toBe(true);
  });

  test("dependencies come from the lockfile without dev dependencies, testcontainers or the bun package", () => {
    // Each shell command of each RUN on its own: `a && b` is two.
    const commands = (stage: string[]) =>
      stage
        .filter((l) => /^RUN\s/i.test(l))
        .flatMap((l) =>
          l
            .replace(/^RUN\s+/i, "")
            .split(/&&|;/)
            .map((c) => c.trim()),
        );
    const isInstall = (c: string) => /^(npm|bun|yarn|pnpm)\s+(ci|install|i|add)\b/.test(c);
    const installs = stages.flatMap(commands).filter(isInstall);
    expect(installs.length).toBeGreaterThan(0);
    for (const c of installs) {
      expect(c).toMatch(/^npm ci\b/);
      expect(c).toMatch(/\s--omit=dev\b/);
    }
    const uninstall = stages.flatMap(commands).find((c) => /^npm uninstall\b/.test(c)) ?? "";
    const removed = uninstall
      .split(/\s+/)
      .slice(2)
      .filter((w) => !w.startsWith("-"));
    expect(uninstall).toMatch(/\s--no-save\b/);
    expect(removed).toContain("testcontainers");
    expect(removed).toContain("bun");
    // The runtime stage takes node_modules from the install stage and installs nothing itself.
    expect(runtime.some((l) => /^COPY --from=\S+ .*node_modules/.test(l))).toBe(true);
    expect(commands(runtime).some(isInstall)).toBe(false);
  });

  test(".dockerignore keeps node_modules, data, .git and tests out of the build context", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((l) => l.trim());
    for (const entry of ["**/node_modules", "**/data", ".git", "tests"]) expect(ignored).toContain(entry);
  });
});
