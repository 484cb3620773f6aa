// The fleet of bench:chaos (issue 37), as an operator runs it, on this machine: each role of the compiled program
// (`npm start -- --role ...`, bench/support/service.ts's serviceCommand) in a network namespace of its own
// (test/support/network-namespaces.ts): two fronts behind a round-robin balancer (and a second one for the consent
// site), the uk data role, a webhook worker, and a partner's receiver verifying every delivery with
// `standardwebhooks`. PostgreSQL is a Patroni cluster with synchronous replication behind HAProxy
// (test/support/patroni-cluster.ts: deploy/patroni, deploy/haproxy), Redis a primary, a replica and three sentinels
// (test/support/private-sentinel.ts: deploy/redis-sentinel's timings); both listen on the bridge's host address, so
// the namespaces reach them as the fleet reaches its database hosts. close() removes every process, namespace and
// directory it made, whatever happened before.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { CredentialService, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase, type Database } from "../../src/storage/postgres.js";
import { build } from "../../scripts/build.mjs";
import { buildState } from "../../scripts/build-state.mjs";
import { reviewLinks } from "../../test/support/app-links.js";
import { prepareFleetControl } from "../../test/support/fleet-control.js";
import { testKek } from "../../test/support/gateway.js";
import { presenting, writeInternalCredentials } from "../../test/support/internal.js";
import { createTopologyNetwork, type Host, type TopologyNetwork } from "../../test/support/network-namespaces.js";
import { startPatroniCluster, type PatroniCluster } from "../../test/support/patroni-cluster.js";
import { sentinelName, startSentinelCluster, type SentinelCluster } from "../../test/support/private-sentinel.js";
import { startProcess, startScript, type RoleProcess } from "../../test/support/role-process.js";
import { startRoundRobinProxy, type RoundRobinProxy } from "../../test/support/round-robin-proxy.js";
import { serviceCommand } from "./service.js";

const root = join(import.meta.dirname, "..", "..");

/** A process of the fleet: what starts it again after a stop or a kill, and the log line that says it is ready. */
export interface FleetRole {
  name: string;
  host: Host;
  args: string[];
  env: Record<string, string>;
  ready: string;
  /** A front's listeners, as the balancers and the operator reach them. */
  origins?: { api: string; consent: string; grpc: string };
  process: RoleProcess | undefined;
}

/** The partner's side: a FULL app and an ONLINE_ORDER app (sandbox pairs) and their sandbox merchant in the uk. */
export interface FleetWorld {
  full: { clientId: string; clientSecret: string };
  orders: { clientId: string; clientSecret: string; token: string };
  owner: { email: string; password: string };
  redirectUri: string;
  companyId: number;
  storeId: number;
  itemId: number;
}

export interface Fleet {
  network: TopologyNetwork;
  cluster: PatroniCluster;
  sentinel: SentinelCluster;
  fronts: FleetRole[];
  data: FleetRole;
  worker: FleetRole;
  receiver: RoleProcess;
  api: RoundRobinProxy;
  consent: RoundRobinProxy;
  /** The uk region's database through HAProxy (the bench's own reads after a fault). */
  region: Database;
  world: FleetWorld;
  /** Starts `role` again and waits for its ready line (and, for a front, for the balancer to take it back). */
  start(role: FleetRole): Promise<void>;
  /** kill -9 of the role's process. */
  kill(role: FleetRole): void;
  /** SIGTERM (drain, then exit) and waits for the exit. */
  stop(role: FleetRole): Promise<void>;
  /** Roles that exited without being stopped or killed (each started again a second later, as a supervisor does). */
  crashes: Array<{ name: string; atMs: number; code: number | null }>;
  close(): Promise<void>;
}

const databases = { control: "chaos_control", region: "chaos_region_uk" };
const redirectUri = "https://app.example/callback";

/** The compiled program, built once here when missing or stale: four roles starting at once must not race a build. */
async function compiled(): Promise<void> {
  const outDir = join(root, "dist");
  if (buildState(root, outDir) !== "fresh") await build({ outDir });
}

/** Every closer of what was made so far, run in reverse order by close(); never throws. */
class Teardown {
  private readonly steps: Array<() => Promise<unknown>> = [];
  private done = false;
  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }
  async run(): Promise<void> {
    if (this.done) return;
    this.done = true;
    for (const step of this.steps.reverse()) await step().catch(() => {});
  }
}

/** Starts the whole fleet; on a failure everything made so far is removed before the error is thrown. */
export async function startFleet(log: (line: string) => void): Promise<Fleet> {
  const teardown = new Teardown();
  try {
    return await startParts(teardown, log);
  } catch (error) {
    await teardown.run();
    throw error;
  }
}

async function startParts(teardown: Teardown, log: (line: string) => void): Promise<Fleet> {
  // Partitions need namespaces: never the loopback fallback.
  process.env["TOPOLOGY_NETWORK"] = "namespaces";
  const network = await createTopologyNetwork();
  teardown.add(() => network.close());
  const dir = await mkdtemp(join(tmpdir(), "pa-chaos-"));
  teardown.add(() => rm(dir, { recursive: true, force: true }));
  const started = performance.now();
  const [cluster, sentinel] = await Promise.all([
    startPatroniCluster({ clientAddress: network.hostAddress }).then((made) => {
      teardown.add(() => made.destroy());
      return made;
    }),
    startSentinelCluster(network.hostAddress).then((made) => {
      if (!made) throw new Error("bench:chaos needs redis-server and redis-sentinel (apt-get install redis-sentinel)");
      teardown.add(() => made.destroy());
      return made;
    }),
    compiled(),
  ]);
  log(`  PostgreSQL (Patroni) and Redis (Sentinel) up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await cluster.createDatabases([databases.control, databases.region]);
  const region = await prepareDatabases(cluster, dir);
  teardown.add(() => region.close());
  const roles = await defineRoles(network, cluster, sentinel, dir);
  const [api, consent] = await Promise.all(
    (["api", "consent"] as const).map((which) =>
      startRoundRobinProxy(
        "127.0.0.1",
        roles.fronts.map((front) => ({ name: front.name, origin: front.origins![which] })),
      ),
    ),
  );
  teardown.add(() => api!.close());
  teardown.add(() => consent!.close());
  for (const front of roles.fronts) {
    front.env["BASE_URL"] = `${api!.url}/`;
    front.env["AUTH_URL"] = consent!.url;
  }
  const everyRole = [...roles.fronts, roles.data, roles.worker];
  // Stopped before the namespaces go (their close() would SIGKILL them anyway): a role's graceful stop is not timed.
  teardown.add(() => Promise.all(everyRole.map((role) => role.process?.stop(5_000))));
  const receiver = startScript(
    "test/support/webhook-receiver-host.ts",
    { RECEIVER_HOST: roles.receiverHost.address, RECEIVER_PORT: "8080" },
    { netns: roles.receiverHost.netns, stdin: true },
  );
  teardown.add(() => receiver.stop(5_000));
  // CHAOS_LOG_DIR: every role process's output (restarts too) written there at the end, for a run to be read after.
  const startedRoles: Array<{ name: string; process: RoleProcess }> = [{ name: "receiver", process: receiver }];
  const logDir = process.env["CHAOS_LOG_DIR"];
  if (logDir) teardown.add(() => writeLogs(logDir, startedRoles));
  // Exits the bench asked for; any other is a crash, started again as an orchestrator's restart policy would.
  const expected = new WeakSet<RoleProcess>();
  const crashes: Fleet["crashes"] = [];
  let closing = false;
  teardown.add(async () => {
    closing = true;
  });
  const launch = (role: FleetRole): Promise<unknown> => {
    const { command, args } = serviceCommand(role.args);
    const child = startProcess({ command, argv: args }, role.env, { netns: role.host.netns });
    role.process = child;
    startedRoles.push({ name: role.name, process: child });
    void child.exited.then(async (code) => {
      if (closing || expected.has(child)) return;
      crashes.push({ name: role.name, atMs: performance.now(), code });
      await sleep(1000);
      if (!closing && role.process === child) await launch(role).catch(() => {});
    });
    return child.line(role.ready, 180_000);
  };
  await Promise.all([...everyRole.map(launch), receiver.line("receiver ready", 60_000)]);
  await Promise.all([api!.allHealthy(), consent!.allHealthy()]);
  log(`  fleet up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const world = await provision(roles.fronts[0]!, roles.operator, region, api!.url, {
    url: `http://${roles.receiverHost.address}:8080/hooks`,
    process: receiver,
  });
  return {
    network,
    cluster,
    sentinel,
    fronts: roles.fronts,
    data: roles.data,
    worker: roles.worker,
    receiver,
    api: api!,
    consent: consent!,
    region,
    world,
    async start(role) {
      await launch(role);
      if (roles.fronts.includes(role)) {
        const deadline = performance.now() + 60_000;
        while (!api!.healthy(role.name) && performance.now() < deadline) await sleep(100);
      }
    },
    kill(role) {
      if (!role.process) return;
      expected.add(role.process);
      role.process.child.kill("SIGKILL");
    },
    async stop(role) {
      if (!role.process) return;
      expected.add(role.process);
      await role.process.stop(60_000);
    },
    crashes,
    close: () => teardown.run(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each process's output in `<dir>/<n>-<name>.log`, numbered in start order. */
async function writeLogs(dir: string, processes: Array<{ name: string; process: RoleProcess }>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [index, { name, process: role }] of processes.entries()) {
    await writeFile(join(dir, `${index}-${name.replace(/\W+/g, "-")}.log`), role.output());
  }
}

/** Migrations, the first signing key and pg-boss's tables, made once here rather than raced by the roles' starts. */
async function prepareDatabases(cluster: PatroniCluster, dir: string): Promise<Database> {
  const control = await openDatabase({ url: cluster.url(databases.control), dataDir: dir, logger: silentLogger });
  try {
    await prepareFleetControl(control.sql, dir);
  } finally {
    await control.close();
  }
  const region = await openDatabase({ url: cluster.url(databases.region), dataDir: dir, logger: silentLogger });
  await migrateRegion(region.sql, "uk", silentLogger);
  return region;
}

/** The machines and each role's environment (not started yet). */
async function defineRoles(
  network: TopologyNetwork,
  cluster: PatroniCluster,
  sentinel: SentinelCluster,
  dir: string,
): Promise<{ fronts: FleetRole[]; data: FleetRole; worker: FleetRole; receiverHost: Host; operator: string }> {
  const [frontA, frontB, dataHost, workerHost, receiverHost] = [
    await network.addHost("front-a"),
    await network.addHost("front-b"),
    await network.addHost("data-uk"),
    await network.addHost("worker"),
    await network.addHost("receiver"),
  ];
  const credentials = await writeInternalCredentials(dir, "accepted-credentials");
  const frontCredentialFile = join(dir, "front-credential");
  await writeFile(frontCredentialFile, `${credentials.front}\n`, { mode: 0o600 });
  // The receiver's private address is allowed for sandbox endpoints, on the fronts (registration) and the worker.
  const webhookNetworks = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: `${receiverHost.address}/32` };
  const data: FleetRole = {
    name: "data uk",
    host: dataHost,
    args: ["--role", "data", "--region", "uk"],
    env: {
      HOST: dataHost.address,
      GRPC_HOST: dataHost.address,
      GRPC_PORT: "8090",
      REGION_GRPC_PORT: "8091",
      DATA_DIR: join(dir, "data-uk"),
      DATABASE_URL: cluster.url(databases.region),
      GRPC_CREDENTIALS_FILE: credentials.file,
      SHUTDOWN_DRAIN_SECONDS: "3",
      // Sandbox orders stay as placed: their only events are the placements'.
      SANDBOX_ORDER_AUTOPILOT_SECONDS: "0",
      LOG_LEVEL: "info",
    },
    ready: "data service ready",
    process: undefined,
  };
  const worker: FleetRole = {
    name: "worker",
    host: workerHost,
    args: ["--role", "worker"],
    env: {
      DATA_DIR: join(dir, "worker"),
      DATABASE_URL: cluster.url(databases.control),
      REGIONS: "uk",
      REGION_DATABASE_URL_UK: cluster.url(databases.region),
      TOKEN_KEY_ENCRYPTION_KEY: testKek,
      ...webhookNetworks,
      WEBHOOK_RETRY_SCHEDULE_SECONDS: "1,2,5",
      SHUTDOWN_GRACE_SECONDS: "15",
      LOG_LEVEL: "info",
    },
    ready: "webhook worker ready",
    process: undefined,
  };
  const fronts = [frontA, frontB].map(
    (host): FleetRole => ({
      name: host.name,
      host,
      args: ["--role", "front"],
      origins: {
        api: `http://${host.address}:8080`,
        consent: `http://${host.address}:8081`,
        grpc: `http://${host.address}:8092`,
      },
      env: {
        HOST: host.address,
        PORT: "8080",
        AUTH_PORT: "8081",
        CONSOLE_PORT: "8082",
        GRPC_HOST: host.address,
        GRPC_PORT: "8092",
        GRPC_CREDENTIALS_FILE: credentials.file,
        DATA_DIR: join(dir, host.name),
        DATABASE_URL: cluster.url(databases.control),
        REDIS_SENTINELS: sentinel.sentinels.map(({ port }) => `${network.hostAddress}:${port}`).join(","),
        REDIS_SENTINEL_NAME: sentinelName,
        TOKEN_KEY_ENCRYPTION_KEY: testKek,
        REGIONS: "uk",
        REGION_GRPC_URL_UK: `http://${dataHost.address}:8091`,
        REGION_GRPC_CREDENTIAL_FILE: frontCredentialFile,
        TRUST_PROXY: network.hostAddress,
        // The load is the bench's, not what a limit should stop.
        PARTNER_RATE_LIMIT: "1000000",
        SANDBOX_TOKEN_RATE_LIMIT: "1000000",
        OAUTH_TOKEN_CLIENT_RATE_LIMIT: "1000000",
        OAUTH_TOKEN_ADDRESS_RATE_LIMIT: "1000000",
        SHUTDOWN_DRAIN_SECONDS: "3",
        SHUTDOWN_GRACE_SECONDS: "30",
        ...webhookNetworks,
        LOG_LEVEL: "info",
      },
      ready: "partner API ready",
      process: undefined,
    }),
  );
  return { fronts, data, worker, receiverHost, operator: credentials.operator };
}

/**
 * The partner, provisioned through front A's internal port as an operator does: an organization, a FULL and an
 * ONLINE_ORDER app, a sandbox merchant in the uk (its rows seeded straight into the region's database, as a front
 * opens none), a sandbox token for orders and a webhook endpoint at the receiver, whose secret the receiver learns.
 */
async function provision(
  front: FleetRole,
  operatorCredential: string,
  region: Database,
  api: string,
  receiver: { url: string; process: RoleProcess },
): Promise<FleetWorld> {
  const operator = createClient(
    CredentialService,
    createGrpcTransport({ baseUrl: front.origins!.grpc, interceptors: [presenting(operatorCredential)] }),
  );
  const { organization } = await operator.createOrganization({ name: `Chaos partner ${process.pid}` });
  const organizationId = organization!.organizationId;
  const app = async (product: Product, name: string) => {
    const created = await operator.createApp({ organizationId, name, product, ...reviewLinks });
    return {
      appId: created.app!.appId,
      clientId: created.sandbox!.clientId,
      clientSecret: created.sandbox!.clientSecret,
    };
  };
  const full = await app(Product.FULL, "Chaos app");
  await operator.setRedirectUris({ appId: full.appId, redirectUris: [redirectUri] });
  const orders = await app(Product.ONLINE_ORDER, "Chaos orders app");
  const made = await operator.provisionSandboxMerchant({ organizationId, country: "GB", name: "Chaos shop" });
  const companyId = Number(made.merchant!.companyId);
  await seedMerchantData(region.sql, "uk", companyId, {
    storeCount: 1,
    itemCount: 20,
    salesDays: 0,
    onlineOrderCount: 0,
    now: new Date(),
  });
  await operator.updateMerchantStatus({ companyId: BigInt(companyId), provisioned: true });
  const [store] = await region.sql<{ id: number }[]>`
    select id from region_uk.stores where company_id = ${companyId} order by id limit 1`;
  const [item] = await region.sql<{ id: number }[]>`
    select id from region_uk.items where company_id = ${companyId} order by id limit 1`;
  const token = await sandboxToken(api, orders, companyId);
  const registered = await fetch(`${api}/v1/webhook-endpoints`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${orders.clientId}:${orders.clientSecret}`).toString("base64")}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ url: receiver.url }),
  });
  const endpoint = (await registered.json()) as { secret?: string };
  if (registered.status !== 200) throw new Error(`webhook endpoint: ${registered.status} ${JSON.stringify(endpoint)}`);
  receiver.process.child.stdin!.write(`${JSON.stringify({ secret: endpoint.secret })}\n`);
  await receiver.process.line("secret added", 10_000);
  return {
    full: { clientId: full.clientId, clientSecret: full.clientSecret },
    orders: { clientId: orders.clientId, clientSecret: orders.clientSecret, token },
    owner: { email: made.owner!.email, password: made.owner!.password },
    redirectUri,
    companyId,
    storeId: Number(store!.id),
    itemId: Number(item!.id),
  };
}

/** A sandbox access token of `pair` for the merchant (POST /v1/token, the sandbox mint), through the balancer. */
export async function sandboxToken(
  api: string,
  pair: { clientId: string; clientSecret: string },
  companyId: number,
): Promise<string> {
  const minted = await fetch(`${api}/v1/token`, {
    method: "POST",
    body: new URLSearchParams({
      client_id: pair.clientId,
      client_secret: pair.clientSecret,
      merchant_id: String(companyId),
    }),
  });
  const body = (await minted.json()) as { access_token?: string };
  if (minted.status !== 200 || !body.access_token) throw new Error(`mint: ${minted.status} ${JSON.stringify(body)}`);
  return body.access_token;
}
