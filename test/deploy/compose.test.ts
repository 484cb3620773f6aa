// compose.yaml, the Dockerfile and deploy/: no containers run here, so their structure is checked by parsing them.
// Every service on our image runs the compiled main (the Dockerfile's CMD, tsconfig.build.json's output) with a real
// --role; its environment names only variables src/config/config.ts reads and, with its secrets filled in, passes
// loadConfig's production checks for that role; the topology is two fronts behind the load balancer, one data role
// per region on a PostgreSQL of its own, a control-plane PostgreSQL and Redis; and the health check script the
// image runs answers for a ready front and a ready internal port, and fails for a dead one.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { parse } from "yaml";
import { tracingEnvironmentNames } from "../../src/runtime/tracing.js";
import { environmentNames, loadConfig } from "../../src/config/config.js";
import { regions, type Region } from "../../src/config/regions.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { compiledMain, roleOf, sampleSecrets } from "../support/deploy-manifests.js";
import { freePort, startTestApp } from "../support/test-app.js";

const Deploy = suite("deploy/compose");
const root = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, "utf8");

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}
const compose = parse(read("compose.yaml"), { merge: true }) as {
  services: Record<string, Service>;
  secrets: Record<string, { environment?: string; file?: string }>;
  networks: Record<string, unknown>;
};
const services = Object.entries(compose.services);
const ours = services.filter(([, service]) => service.image === "partner-api:latest");
/** The environment compose would give, with `${NAME:?...}` secrets filled with sample values and `${NAME:-x}` as x. */
function substituted(environment: Record<string, string>): Record<string, string> {
  const fill = (value: string) =>
    value.replace(/\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) =>
      kind === "-" ? (rest ?? "") : name in sampleSecrets ? sampleSecrets[name]! : `sample-${name.toLowerCase()}`,
    );
  return Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, fill(String(value))]));
}

const hostOf = (url: string) => new URL(url).hostname;

Deploy(
  "the Dockerfile: multi-stage, compiled output only, non-root, HEALTHCHECK on /readyz, CMD the build's main",
  () => {
    const dockerfile = read("Dockerfile");
    const stages = dockerfile.split(/^FROM /m).slice(1);
    assert.is(stages.length, 3);
    const final = stages[2]!;
    const cmd = /^CMD (\[.*\])$/m.exec(final);
    assert.equal(JSON.parse(cmd![1]!), compiledMain);
    // The path CMD names is where tsconfig.build.json puts src/main.ts: outDir dist, rootDir the project.
    const build = JSON.parse(read("tsconfig.build.json")) as { compilerOptions: { outDir: string; rootDir: string } };
    assert.equal([build.compilerOptions.outDir, build.compilerOptions.rootDir], ["dist", "."]);
    assert.ok(existsSync(`${root}src/main.ts`));
    assert.match(read("scripts/build.mjs"), 'join(root, "dist")');
    assert.match(final, /^USER node$/m);
    assert.not.match(final, /^USER (root|0)\b/m);
    // Only the build's output, the runtime dependencies, the manifest and the health check reach the final stage.
    const copies = [...final.matchAll(/^COPY (.*)$/gm)].map((match) => match[1]);
    assert.equal(copies, [
      "--from=runtime-dependencies /app/node_modules ./node_modules",
      "package.json ./",
      "--from=build /app/dist ./dist",
      "deploy/healthcheck.mjs ./healthcheck.mjs",
    ]);
    assert.match(stages[1]!, "npm ci --omit=dev");
    assert.match(stages[0]!, "RUN npm run build");
    assert.match(final, /^HEALTHCHECK .* CMD \["node", "healthcheck.mjs"\]$/m);
    assert.match(read("deploy/healthcheck.mjs"), 'path: "/readyz"');
  },
);

Deploy(
  "every service on our image runs the compiled main with a real --role, and reads only variables config.ts knows",
  () => {
    assert.ok(ours.length > 0);
    const known = new Set([...environmentNames, ...tracingEnvironmentNames, "NODE_ENV"]);
    for (const [name, service] of ours) {
      assert.equal(service.command?.slice(0, compiledMain.length), compiledMain, name);
      const role = roleOf(service.command ?? []);
      assert.ok(role, `${name}: ${service.command?.join(" ")} is not a role main accepts`);
      const unknown = Object.keys(service.environment ?? {}).filter((variable) => !known.has(variable));
      assert.equal(unknown, [], `${name} sets variables config.ts does not read`);
      // The production checks of that role pass on this environment (a data role needs only its database).
      const environment = substituted(service.environment ?? {});
      assert.is(environment["NODE_ENV"], "production", name);
      const config = loadConfig(environment, role);
      // Every listener is reachable on the backend network (the worker has none).
      if (role.role !== "worker") assert.is(config.listen.grpcHost, "0.0.0.0", name);
      // A file setting names a secret this service mounts, declared from the environment of compose.
      for (const variable of ["GRPC_CREDENTIALS_FILE", "REGION_GRPC_CREDENTIAL_FILE"]) {
        const file = environment[variable];
        if (file === undefined) continue;
        const secret = /^\/run\/secrets\/(.+)$/.exec(file)?.[1];
        assert.ok(secret && service.secrets?.includes(secret), `${name}: ${variable} is a mounted secret`);
        assert.ok(compose.secrets[secret]?.environment, `${secret} comes from the environment`);
      }
    }
  },
);

Deploy(
  "topology: two fronts behind the load balancer, one data role per region on its own PostgreSQL, control PostgreSQL, Redis",
  () => {
    const fronts = ours.filter(([, service]) => roleOf(service.command ?? [])?.role === "front");
    const data = ours.filter(([, service]) => roleOf(service.command ?? [])?.role === "data");
    assert.equal(
      fronts.map(([name]) => name),
      ["front-1", "front-2"],
    );
    const workers = ours.filter(([, service]) => roleOf(service.command ?? [])?.role === "worker");
    assert.equal(
      workers.map(([name]) => name),
      ["worker"],
      "webhooks are delivered (fronts and data roles only write events)",
    );
    assert.equal(ours.length, fronts.length + data.length + workers.length, "no all-roles process");

    // One data role per region, each on a PostgreSQL service of its own.
    const regionDatabases = new Map<string, string>();
    for (const [name, service] of data) {
      const role = roleOf(service.command!) as { role: "data"; region: string };
      const url = substituted(service.environment!)[`REGION_DATABASE_URL_${role.region.toUpperCase()}`]!;
      assert.is(compose.services[hostOf(url)]?.image, "postgres:16-alpine", name);
      regionDatabases.set(role.region, hostOf(url));
      assert.equal(service.healthcheck?.test, ["CMD", "node", "healthcheck.mjs", "data"], name);
    }
    assert.equal([...regionDatabases.keys()].sort(), [...regions].sort());
    assert.is(new Set(regionDatabases.values()).size, regions.length);

    const lb = compose.services["load-balancer"]!;
    const conf = read("deploy/load-balancer.conf");
    const lbAddress = (lb.networks as Record<string, { ipv4_address: string }>)["edge"]!.ipv4_address;
    for (const [name, service] of fronts) {
      const environment = substituted(service.environment!);
      const control = hostOf(environment["DATABASE_URL"]!);
      assert.is(compose.services[control]?.image, "postgres:16-alpine");
      assert.not.ok([...regionDatabases.values()].includes(control), "the control plane has a PostgreSQL of its own");
      assert.is(compose.services[hostOf(environment["REDIS_URL"]!)]?.image, "redis:7-alpine");
      // Every region reached at its data role's region hop port (its REGION_GRPC_PORT).
      for (const region of regions) {
        const url = new URL(environment[`REGION_GRPC_URL_${region.toUpperCase()}`]!);
        assert.is(url.hostname, `data-${region}`, name);
        const dataRole = compose.services[`data-${region}`]!;
        const hopPort = loadConfig(substituted(dataRole.environment!), { role: "data", region: region as Region })
          .listen.regionGrpcPort;
        assert.is(url.port, String(hopPort));
      }
      // X-Forwarded-For is trusted from the load balancer only; it spreads the API and the consent site over both.
      assert.is(environment["TRUST_PROXY"], lbAddress);
      assert.match(conf, `server ${name}:8080 `);
      assert.match(conf, `server ${name}:8081 `);
      assert.is(lb.depends_on?.[name]?.condition, "service_healthy");
    }
    assert.equal(lb.volumes, ["./deploy/load-balancer.conf:/etc/nginx/nginx.conf:ro"]);
    assert.match(conf, "proxy_set_header X-Forwarded-For $remote_addr;");
    // Only the load balancer publishes ports; the internal ports and databases stay on the backend network.
    assert.equal(
      services.filter(([, service]) => "ports" in service).map(([name]) => name),
      ["load-balancer"],
    );
  },
);

/** Runs deploy/healthcheck.mjs with `env`; its exit code and error output. */
function healthcheck(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [`${root}deploy/healthcheck.mjs`, ...args],
      { env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: 30_000 },
      (error, _out, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stderr }),
    ),
  );
}

Deploy(
  "the image's health check: 0 for a ready front (/readyz) and a serving internal port (data), 1 for a dead one",
  async () => {
    const test = await startTestApp({ clock: createManualClock(Date.now()), redis: false });
    try {
      const port = new URL(test.base).port;
      assert.equal(await healthcheck([], { PORT: port }), { code: 0, stderr: "" });
      assert.equal(await healthcheck(["data"], { GRPC_PORT: String(test.app.grpc.port) }), { code: 0, stderr: "" });
    } finally {
      await test.stop();
    }
    const dead = String(await freePort());
    const front = await healthcheck([], { PORT: dead });
    assert.is(front.code, 1);
    assert.match(front.stderr, /^not ready: .*ECONNREFUSED/);
    const data = await healthcheck(["data"], { GRPC_PORT: dead });
    assert.is(data.code, 1);
    assert.match(data.stderr, /^not ready: .*ECONNREFUSED/);
  },
);

Deploy.run();
