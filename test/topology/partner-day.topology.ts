// The production-shaped topology on this machine (issue 17), and a partner's day through it. Each role is a process
// of its own, each in a network namespace of its own where this machine allows (loopback ports otherwise):
//   - two fronts (`--role front`: public API, consent site, internal port) sharing one control database and one Redis,
//     behind a round-robin load balancer (test/support/round-robin-proxy.ts) that they trust through TRUST_PROXY;
//   - a data role per region (`--role data --region uk|us`), each on its own PostgreSQL database;
//   - a webhook worker beside each (`--role worker`, the uk and us workers: the fronts enqueue, only these deliver),
//     and a partner's receiver host verifying every delivery with `standardwebhooks`;
//   - PostgreSQL and Redis are the host's, reached from the namespaces through TCP forwarders on the bridge.
// The day: a merchant owner consents in chromium (one per region), the partner refreshes on alternating fronts,
// calls business routes for both merchants, meets the per-app limit exactly across both fronts; a data role stops
// (its region 503, the other 200) and restarts (recovering without restarting the fronts); a front stops mid-traffic
// (its in-flight requests finish, the balancer moves on); orders placed while that front is stopped, after it is
// restarted, while a worker is stopped and after it is restarted each reach the receiver, verified, exactly once
// by webhook-id; last, a rolling restart (issue 37): every front, data role and worker stopped and started again in
// turn under steady reads and orders, answered only 200 or a documented 503, with exactly the accepted orders stored
// and each one's event delivered. Run with `npm run test:topology` (not part of `npm test`):
// real PostgreSQL and Redis, TEST_DATABASE_URL / TEST_REDIS_URL or the machine's 127.0.0.1 defaults.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as oauth from "oauth4webapi";
import { chromium, type Browser } from "playwright-core";
import { suite } from "../support/suite.js";
import { chromiumAvailable, chromiumPath, withoutChromium } from "../support/browser.js";
import * as assert from "uvu/assert";
import { CredentialService, MerchantRole, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import type { Region } from "../../src/config/regions.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock, systemClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase, type Database } from "../../src/storage/postgres.js";
import { createSigningKeyStore, loadKeyEncryptionKey } from "../../src/token/index.js";
import { uniqueEmail } from "../support/consent.js";
import { prepareFleetControl } from "../support/fleet-control.js";
import { createFixture, testKek, tokenFor } from "../support/gateway.js";
import { presenting, writeInternalCredentials, type InternalCredentials } from "../support/internal.js";
import { createTopologyNetwork, type Host, type TopologyNetwork } from "../support/network-namespaces.js";
import { createProgramClock, type ProgramClock } from "../support/program-clock.js";
import { startRole, startScript, type RoleProcess } from "../support/role-process.js";
import { startRoundRobinProxy, type RoundRobinProxy } from "../support/round-robin-proxy.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import { startTcpForwarder, type TcpForwarder } from "../support/tcp-forwarder.js";
import { freePort } from "../support/test-app.js";
import type { ItemPage, PartnerErrorBody } from "../support/wire.js";
import { reviewLinks } from "../support/app-links.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
/** What the day's calls answer: a page, the partner error envelope, or a token response. */
type Json = Partial<ItemPage & PartnerErrorBody & { access_token: string; refresh_token: string }>;

// Real services only: the machine's own when the environment names none.
process.env["TEST_DATABASE_URL"] ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env["TEST_REDIS_URL"] ??= "redis://127.0.0.1:6379";

const Topology = suite("topology/partner-day");
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const browserTimeout = 30_000;
/** The spec's per-app ceiling (PARTNER_RATE_LIMIT's default), set explicitly on both fronts. */
const partnerLimit = 300;
/** The whole test stays under four minutes: past this, everything is torn down and the run fails. */
const deadlineMs = 420_000;
const regionsServed: Region[] = ["uk", "us"];
const itemCounts: Record<"uk" | "us", number> = { uk: 4, us: 6 };
const currencies: Record<"uk" | "us", string> = { uk: "GBP", us: "USD" };

interface FrontNode {
  name: string;
  host: Host;
  origin: string;
  consentOrigin: string;
  grpcOrigin: string;
  /** Its environment, to start it again after a stop. */
  env: Record<string, string>;
  process: RoleProcess;
}

/** A `--role worker` process: webhook delivery alone, on the control database and every region's. */
interface WorkerNode {
  name: string;
  host: Host;
  env: Record<string, string>;
  process: RoleProcess | undefined;
}

/** The partner's webhook receiver: a machine of its own (test/support/webhook-receiver-host.ts). */
interface ReceiverNode {
  host: Host;
  url: string;
  process: RoleProcess | undefined;
}

interface DataNode {
  region: Region;
  host: Host;
  port: number;
  /** Its region hop port (REGION_GRPC_PORT), where the fronts' REGION_GRPC_URL_<R> point. */
  hopPort: number;
  process: RoleProcess | undefined;
}

interface Merchant {
  region: "uk" | "us";
  companyId: number;
  owner: { email: string; password: string };
}

// The topology, built in `before` and torn down in `after` (or by the deadline).
let network: TopologyNetwork | undefined;
let root: string | undefined;
const databaseUrls: string[] = [];
const openDatabases: Database[] = [];
const forwarders: TcpForwarder[] = [];
const proxies: RoundRobinProxy[] = [];
const fronts: FrontNode[] = [];
const dataNodes = new Map<Region, DataNode>();
const workers: WorkerNode[] = [];
let receiverNode: ReceiverNode | undefined;
let dataEnv: (region: Region) => Record<string, string>;
/**
 * The fronts' clock, moved by the test (never waited for) where a burst must fall in one rate window. The fronts
 * only: a worker schedules a retry's pg-boss job by its clock against the database's, which a move would delay.
 */
let programs: ProgramClock | undefined;
let api: RoundRobinProxy;
let consentSite: RoundRobinProxy;
let callback: http.Server | undefined;
let callbackBase: string;
let browser: Browser | undefined;
let credentials: InternalCredentials;
let control: Database;
let regionDatabases: Map<Region, Database>;
let world: {
  organizationId: bigint;
  appId: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  merchants: Merchant[];
};
let as: oauth.AuthorizationServer;
/** The partner's current tokens per merchant region, as the day goes on. */
const tokens = new Map<Region, { access: string; refresh: string }>();
let deadline: NodeJS.Timeout | undefined;

/** Polls `condition` every `intervalMs` until it holds; fails after `timeoutMs` with `what`. */
async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** `url` (PostgreSQL or Redis on the host) as a process on `host` reaches it: through the forwarder in namespaces. */
function reachableFrom(url: string, forwarder: TcpForwarder | undefined): string {
  if (!forwarder || !network || network.mode === "loopback") return url;
  const parsed = new URL(url);
  parsed.hostname = network.hostAddress;
  parsed.port = String(forwarder.port);
  return parsed.toString();
}

/** A port for a listener of `host`: the conventional one on a machine of its own, a free one on shared loopback. */
async function portFor(conventional: number): Promise<number> {
  return network?.mode === "namespaces" ? conventional : freePort();
}

/** An interrupted run (Ctrl-C, CI cancel) still removes its processes, namespaces and databases. */
function interrupted(signal: NodeJS.Signals): void {
  console.error(`topology/partner-day: ${signal}; tearing down`);
  void teardown().finally(() => process.exit(1));
}

async function teardown(): Promise<void> {
  clearTimeout(deadline);
  process.off("SIGINT", interrupted);
  process.off("SIGTERM", interrupted);
  await browser?.close().catch(() => {});
  browser = undefined;
  // A data node whose process never started (the start failed earlier) has none to stop.
  await Promise.all([
    ...fronts.map((front) => front.process.stop(15_000)),
    ...[...dataNodes.values()].map((node) => node.process?.stop(15_000)),
    ...workers.map((worker) => worker.process?.stop(15_000)),
    receiverNode?.process?.stop(5_000),
  ]);
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const forwarder of forwarders.splice(0)) await forwarder.close();
  if (callback) await new Promise((resolve) => callback!.close(resolve));
  callback = undefined;
  for (const database of openDatabases.splice(0)) await database.close().catch(() => {});
  for (const url of databaseUrls.splice(0)) await dropDatabase(url).catch(() => {});
  await network?.close();
  if (root) await rm(root, { recursive: true, force: true });
  await programs?.remove();
}

function startData(region: Region): RoleProcess {
  const node = dataNodes.get(region)!;
  return startRole(["--role", "data", "--region", region], dataEnv(region), { netns: node.host.netns });
}

function startWorker(worker: WorkerNode): RoleProcess {
  return startRole(["--role", "worker"], worker.env, { netns: worker.host.netns });
}

/** The CredentialService of `front`'s internal port, presenting `credential`. */
const internalClient = (front: FrontNode, credential: string): Client<typeof CredentialService> =>
  createClient(
    CredentialService,
    createGrpcTransport({ baseUrl: front.grpcOrigin, interceptors: [presenting(credential)] }),
  );

Topology.before(async () => {
  // uvu reports a failing hook only as failed tests: say why here.
  await buildTopology().catch((error: unknown) => {
    console.error("topology/partner-day: the topology did not start:", error);
    throw error;
  });
});

/** Starts every process of the topology and provisions the world; torn down by `teardown` whatever happened. */
async function buildTopology(): Promise<void> {
  deadline = setTimeout(() => {
    console.error(`topology/partner-day: over ${deadlineMs / 1000} s; tearing down`);
    void teardown().finally(() => process.exit(1));
  }, deadlineMs);
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  const started = performance.now();
  assert.ok(chromiumAvailable, withoutChromium);
  network = await createTopologyNetwork();
  console.log(
    `  topology network: ${network.mode}${network.mode === "namespaces" ? ` (host ${network.hostAddress})` : ""}`,
  );
  root = await mkdtemp(join(tmpdir(), "pa-topology-"));
  programs = await createProgramClock();

  // Databases: the control plane both fronts share, and one per region for its data role.
  const [controlUrl, ukUrl, usUrl] = [await freshDatabaseUrl(), await freshDatabaseUrl(), await freshDatabaseUrl()];
  databaseUrls.push(controlUrl!, ukUrl!, usUrl!);
  const regionUrls = new Map<Region, string>([
    ["uk", ukUrl!],
    ["us", usUrl!],
  ]);
  control = await openDatabase({ url: controlUrl, dataDir: root, logger: silentLogger });
  openDatabases.push(control);
  await prepareFleetControl(control.sql, root);
  regionDatabases = new Map();
  for (const region of regionsServed) {
    const database = await openDatabase({ url: regionUrls.get(region), dataDir: root, logger: silentLogger });
    openDatabases.push(database);
    await migrateRegion(database.sql, region, silentLogger);
    regionDatabases.set(region, database);
  }

  // PostgreSQL and Redis listen on the host's loopback: the namespaces reach them through forwarders on the bridge.
  let postgresForwarder: TcpForwarder | undefined;
  let redisForwarder: TcpForwarder | undefined;
  if (network.mode === "namespaces") {
    const target = (url: string, port: number) => ({
      host: new URL(url).hostname,
      port: Number(new URL(url).port || port),
    });
    postgresForwarder = await startTcpForwarder(network.hostAddress, target(process.env["TEST_DATABASE_URL"]!, 5432));
    redisForwarder = await startTcpForwarder(network.hostAddress, target(process.env["TEST_REDIS_URL"]!, 6379));
    forwarders.push(postgresForwarder, redisForwarder);
  }

  credentials = await writeInternalCredentials(root, "accepted-credentials");
  const frontCredentialFile = join(root, "front-credential");
  await writeFile(frontCredentialFile, credentials.front + "\n", { mode: 0o600 });

  // The machines, and the ports they listen on.
  const frontHosts = [await network.addHost("front-a"), await network.addHost("front-b")];
  for (const region of regionsServed) {
    const host = await network.addHost(`data-${region}`);
    dataNodes.set(region, {
      region,
      host,
      port: await portFor(8090),
      hopPort: await portFor(8091),
      process: undefined,
    });
  }
  const workerHosts = await Promise.all(regionsServed.map((region) => network!.addHost(`worker-${region}`)));
  const receiverHost = await network.addHost("receiver");
  const receiverPort = await portFor(8080);
  receiverNode = {
    host: receiverHost,
    url: `http://${receiverHost.address}:${receiverPort}/hooks`,
    process: undefined,
  };
  // The receiver's address is private (the bridge's): the operator allows exactly it, for sandbox endpoints, on the
  // fronts (registration) and the workers (delivery). On loopback, WEBHOOK_ALLOW_LOOPBACK's default allows it.
  const webhookNetworks: Record<string, string> =
    network.mode === "namespaces" ? { WEBHOOK_ALLOW_PRIVATE_NETWORKS: `${receiverHost.address}/32` } : {};
  const frontPorts = await Promise.all(
    frontHosts.map(async () => ({
      port: await portFor(8080),
      authPort: await portFor(8081),
      consolePort: await portFor(8082),
      grpcPort: await portFor(8090),
    })),
  );
  const origins = frontHosts.map((host, index) => ({
    origin: `http://${host.address}:${frontPorts[index]!.port}`,
    consentOrigin: `http://${host.address}:${frontPorts[index]!.authPort}`,
    grpcOrigin: `http://${host.address}:${frontPorts[index]!.grpcPort}`,
  }));

  // The load balancers the partner and the merchant's browser reach: the API, and the consent site.
  api = await startRoundRobinProxy(
    "127.0.0.1",
    frontHosts.map((host, index) => ({ name: host.name, origin: origins[index]!.origin })),
  );
  consentSite = await startRoundRobinProxy(
    "127.0.0.1",
    frontHosts.map((host, index) => ({ name: host.name, origin: origins[index]!.consentOrigin })),
  );
  proxies.push(api, consentSite);

  dataEnv = (region) => {
    const node = dataNodes.get(region)!;
    return {
      HOST: node.host.address,
      GRPC_HOST: node.host.address,
      GRPC_PORT: String(node.port),
      REGION_GRPC_PORT: String(node.hopPort),
      DATA_DIR: join(root!, `data-${region}`),
      DATABASE_URL: reachableFrom(regionUrls.get(region)!, postgresForwarder),
      GRPC_CREDENTIALS_FILE: credentials.file,
      SHUTDOWN_DRAIN_SECONDS: "0",
      // Sandbox orders stay as placed: their only events are the ones the test makes.
      SANDBOX_ORDER_AUTOPILOT_SECONDS: "0",
      LOG_LEVEL: "info",
    };
  };
  for (const region of regionsServed) dataNodes.get(region)!.process = startData(region);
  // A worker beside each data role; each relays every outbox (the control one and both regions') and sends attempts.
  for (const host of workerHosts) {
    const worker: WorkerNode = {
      name: host.name,
      host,
      env: {
        DATA_DIR: join(root!, host.name),
        DATABASE_URL: reachableFrom(controlUrl!, postgresForwarder),
        REGIONS: regionsServed.join(","),
        ...Object.fromEntries(
          regionsServed.map((served) => [
            `REGION_DATABASE_URL_${served.toUpperCase()}`,
            reachableFrom(regionUrls.get(served)!, postgresForwarder),
          ]),
        ),
        TOKEN_KEY_ENCRYPTION_KEY: testKek,
        ...webhookNetworks,
        WEBHOOK_RETRY_SCHEDULE_SECONDS: "1,2,5",
        SHUTDOWN_GRACE_SECONDS: "15",
        LOG_LEVEL: "info",
      },
      process: undefined,
    };
    worker.process = startWorker(worker);
    workers.push(worker);
  }
  receiverNode.process = startScript(
    "test/support/webhook-receiver-host.ts",
    { RECEIVER_HOST: receiverHost.address, RECEIVER_PORT: String(receiverPort) },
    { netns: receiverHost.netns, stdin: true },
  );
  frontHosts.forEach((host, index) => {
    const ports = frontPorts[index]!;
    const env: Record<string, string> = {
      ...programs!.env,
      HOST: host.address,
      PORT: String(ports.port),
      AUTH_PORT: String(ports.authPort),
      // A front serves the console site too: on shared loopback the two must not both take 8082.
      CONSOLE_PORT: String(ports.consolePort),
      // The internal port on the machine's private address: the operator provisions through it below.
      GRPC_HOST: host.address,
      GRPC_PORT: String(ports.grpcPort),
      GRPC_CREDENTIALS_FILE: credentials.file,
      DATA_DIR: join(root!, host.name),
      DATABASE_URL: reachableFrom(controlUrl!, postgresForwarder),
      REDIS_URL: reachableFrom(process.env["TEST_REDIS_URL"]!, redisForwarder),
      REDIS_COUNT_TIMEOUT_MS: "10000",
      TOKEN_KEY_ENCRYPTION_KEY: testKek,
      REGIONS: regionsServed.join(","),
      REGION_GRPC_CREDENTIAL_FILE: frontCredentialFile,
      // Partners and browsers know the balancers' URLs only; the fronts believe X-Forwarded-For from them alone.
      BASE_URL: `${api.url}/`,
      AUTH_URL: consentSite.url,
      TRUST_PROXY: network!.hostAddress,
      PARTNER_RATE_LIMIT: String(partnerLimit),
      SHUTDOWN_DRAIN_SECONDS: "3",
      SHUTDOWN_GRACE_SECONDS: "30",
      ...webhookNetworks,
      LOG_LEVEL: "info",
    };
    for (const region of regionsServed) {
      const node = dataNodes.get(region)!;
      env[`REGION_GRPC_URL_${region.toUpperCase()}`] = `http://${node.host.address}:${node.hopPort}`;
    }
    fronts.push({
      name: host.name,
      host,
      ...origins[index]!,
      env,
      process: startRole(["--role", "front"], env, { netns: host.netns }),
    });
  });
  await Promise.all([
    ...fronts.map((front) => front.process.line("partner API ready")),
    ...[...dataNodes.values()].map((node) => node.process!.line("data service ready")),
    ...workers.map((worker) => worker.process!.line("webhook worker ready")),
    receiverNode.process.line("receiver ready"),
  ]);
  await api.allHealthy();
  await consentSite.allHealthy();
  const processes = fronts.length + dataNodes.size + workers.length + 1;
  console.log(`  topology up in ${((performance.now() - started) / 1000).toFixed(1)} s (${processes} processes)`);

  // The app's own callback page, where chromium lands after the consent.
  const port = await freePort();
  callbackBase = `http://127.0.0.1:${port}`;
  callback = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>callback</title><p>back at the app</p>");
  });
  await new Promise<void>((resolve) => callback!.listen(port, "127.0.0.1", resolve));

  // The operator provisions the world through front A's internal port (an app, a live merchant per region with its
  // owner) and staff approve the app through front B's. Each region's business data is seeded straight into that
  // region's database.
  const operator = internalClient(fronts[0]!, credentials.operator);
  const staff = internalClient(fronts[1]!, credentials.staff);
  const { organization } = await operator.createOrganization({ name: `Topology partner ${process.pid}` });
  const created = await operator.createApp({
    organizationId: organization!.organizationId,
    name: "Topology app",
    product: Product.FULL,
    ...reviewLinks,
  });
  const appId = created.app!.appId;
  const redirectUri = `${callbackBase}/callback`;
  await operator.setRedirectUris({ appId, redirectUris: [redirectUri] });
  await operator.submitApp({ appId });
  const approved = await staff.approveApp({ appId });
  const merchants: Merchant[] = [];
  for (const region of ["uk", "us"] as const) {
    const { merchant } = await operator.createMerchant({ name: `Topology shop ${region}`, region });
    const companyId = merchant!.companyId;
    const { user } = await operator.createMerchantUser({
      companyId,
      email: uniqueEmail(`owner-${region}`),
      role: MerchantRole.OWNER,
    });
    await operator.updateMerchantStatus({ companyId, provisioned: true });
    await seedMerchantData(regionDatabases.get(region)!.sql, region, Number(companyId), {
      storeCount: 1,
      itemCount: itemCounts[region],
      salesDays: 0,
      onlineOrderCount: 0,
      now: new Date(),
    });
    merchants.push({ region, companyId: Number(companyId), owner: { email: user!.email, password: user!.password } });
  }
  world = {
    organizationId: organization!.organizationId,
    appId,
    clientId: approved.production!.clientId,
    clientSecret: approved.production!.clientSecret,
    redirectUri,
    merchants,
  };

  const issuer = new URL(`${api.url}/`);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: browserTimeout,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

Topology.after(async () => {
  await teardown();
});

const client = (): oauth.Client => ({ client_id: world.clientId });
const clientAuth = () => oauth.ClientSecretPost(world.clientSecret);

/** The merchant owner of `merchant` consents in a browser of their own; the exchanged tokens. */
async function consentInChromium(merchant: Merchant): Promise<oauth.TokenEndpointResponse> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  for (const [name, value] of Object.entries({
    client_id: world.clientId,
    redirect_uri: world.redirectUri,
    response_type: "code",
    scope: "items.read",
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
  }))
    url.searchParams.set(name, value);
  const context = await browser!.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(browserTimeout);
    await page.goto(url.href);
    await page.getByLabel("Email").fill(merchant.owner.email);
    await page.getByLabel("Password").fill(merchant.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Connect an app" }).waitFor();
    // The company by its name, never by its number (the consent screen's second pass).
    const consent = await page.locator("main").innerText();
    assert.match(consent, `Topology shop ${merchant.region}`);
    assert.not.match(consent, `company ${merchant.companyId}`);
    await Promise.all([
      page.waitForURL((target) => target.href.startsWith(world.redirectUri)),
      page.getByRole("button", { name: "Allow" }).click(),
    ]);
    const params = oauth.validateAuthResponse(as, client(), new URL(page.url()), state);
    return await oauth.processAuthorizationCodeResponse(
      as,
      client(),
      await oauth.authorizationCodeGrantRequest(
        as,
        client(),
        clientAuth(),
        params,
        world.redirectUri,
        codeVerifier,
        insecure,
      ),
    );
  } finally {
    await context.close();
  }
}

/** A partner call through the balancer with `token`; status, headers and parsed body. */
async function call(path: string, token: string): Promise<{ status: number; headers: Headers; body: Json }> {
  const response = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

const accessOf = (region: Region) => tokens.get(region)!.access;

Topology(
  "an owner per region consents in chromium; the partner's refreshes alternate fronts behind the balancer",
  async () => {
    for (const merchant of world.merchants) {
      const exchanged = await consentInChromium(merchant);
      assert.is(exchanged.token_type, "bearer");
      assert.is(exchanged.expires_in, 900);
      assert.is(exchanged["merchant_id"], merchant.companyId);
      tokens.set(merchant.region, { access: exchanged.access_token, refresh: exchanged.refresh_token! });
    }
    const tokenPath = new URL(as.token_endpoint!).pathname;
    const mark = api.routed.length;
    for (let refresh = 0; refresh < 4; refresh++) {
      const current = tokens.get("uk")!;
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client(),
        await oauth.refreshTokenGrantRequest(as, client(), clientAuth(), current.refresh, insecure),
      );
      assert.is.not(refreshed.refresh_token, current.refresh);
      assert.is(refreshed["merchant_id"], world.merchants[0]!.companyId);
      tokens.set("uk", { access: refreshed.access_token, refresh: refreshed.refresh_token! });
    }
    const refreshes = api.routed.slice(mark).filter((routed) => routed.path === tokenPath);
    assert.equal(
      refreshes.map((routed) => routed.status),
      [200, 200, 200, 200],
    );
    const [first, second] = [refreshes[0]!.backend, refreshes[1]!.backend];
    assert.is.not(first, second, "consecutive refreshes reach different fronts");
    assert.equal(
      refreshes.map((routed) => routed.backend),
      [first, second, first, second],
    );
  },
);

Topology(
  "business calls for merchants in both regions answer from each region's data role, on either front",
  async () => {
    const mark = api.routed.length;
    for (const region of ["uk", "uk", "us", "us"] as const) {
      const answer = await call("/v1/items?limit=100", accessOf(region));
      assert.is(answer.status, 200, JSON.stringify(answer.body));
      assert.is(answer.body.items!.length, itemCounts[region], `the ${region} database's rows`);
      assert.ok(
        answer.body.items!.every((item) => item.currency === currencies[region]),
        `${region} prices in ${currencies[region]}`,
      );
    }
    const backends = api.routed.slice(mark).map((routed) => routed.backend);
    assert.equal(new Set(backends.slice(0, 2)).size, 2, "uk served by both fronts");
    assert.equal(new Set(backends.slice(2, 4)).size, 2, "us served by both fronts");
  },
);

Topology(
  "the per-app limit is exact across both fronts: PARTNER_RATE_LIMIT pass in one window, the rest 429",
  async () => {
    // An app of its own (its window untouched by the rest of the day), with a live grant for a us merchant.
    const clock = createManualClock(Math.max(systemClock.now(), Date.now()));
    const fixture = await createFixture(control.sql, () => undefined, clock, { region: "us", seed: false });
    await seedMerchantData(regionDatabases.get("us")!.sql, "us", fixture.companyId, {
      storeCount: 1,
      itemCount: 2,
      salesDays: 0,
      onlineOrderCount: 0,
      now: new Date(),
    });
    const kek = await loadKeyEncryptionKey({ configured: testKek, dataDir: root!, logger: silentLogger });
    const key = await createSigningKeyStore({
      sql: control.sql,
      kek,
      clock: systemClock,
      logger: silentLogger,
      accessTokenTtlSeconds: 900,
    }).signingKey();
    const token = tokenFor(key, loadConfig({ BASE_URL: `${api.url}/` }), clock, fixture);
    const excess = 5;
    // All in one window: the fronts' clock moved one second into a fresh minute (59 s for the burst).
    const burstAt = await programs!.toNextMinute();
    const mark = api.routed.length;
    const answers: Array<{ status: number; headers: Headers; body: Json }> = [];
    let sent = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (sent < partnerLimit + excess) {
          sent++;
          answers.push(await call("/v1/items", token));
        }
      }),
    );
    const passed = answers.filter((answer) => answer.status === 200);
    const limited = answers.filter((answer) => answer.status === 429);
    assert.is(answers.length, partnerLimit + excess);
    assert.is(
      passed.length,
      partnerLimit,
      `statuses: ${[...new Set(answers.map((answer) => answer.status))].join(",")}`,
    );
    assert.is(limited.length, excess);
    // One counter for both fronts: the passes saw every remaining count from limit - 1 down to 0 exactly once (the
    // fronts wait for Redis up to REDIS_COUNT_TIMEOUT_MS, so a loaded machine cannot push a call onto a front's own window).
    const remaining = passed.map((answer) => Number(answer.headers.get("x-ratelimit-remaining"))).sort((a, b) => a - b);
    assert.equal(
      remaining,
      Array.from({ length: partnerLimit }, (_, n) => n),
    );
    // The window of the fronts' moved clock (X-RateLimit-Reset: Unix seconds of its end).
    const reset = answers[0]!.headers.get("x-ratelimit-reset");
    assert.is(reset, String(Math.ceil(burstAt / 60_000) * 60));
    for (const answer of answers) {
      assert.is(answer.headers.get("x-ratelimit-limit"), String(partnerLimit));
      assert.is(answer.headers.get("x-ratelimit-reset"), reset, "one window");
    }
    for (const answer of limited) {
      assert.is(answer.headers.get("x-ratelimit-remaining"), "0");
      assert.is(answer.body.code, "partner.rate_limited");
      assert.is(answer.body.statusCode, 429);
      assert.match(answer.body.message!, /\d+ second/);
    }
    const perFront = new Map<string, number>();
    for (const routed of api.routed.slice(mark)) perFront.set(routed.backend, (perFront.get(routed.backend) ?? 0) + 1);
    assert.equal([...perFront.keys()].sort(), fronts.map((front) => front.name).sort(), "split over both fronts");
    for (const [name, count] of perFront) assert.ok(count >= (partnerLimit + excess) / 3, `${name} got ${count}`);
  },
);

Topology(
  "a data role stopped: its region answers 503 server.unavailable, the other 200; restarted, it recovers without restarting the fronts",
  async () => {
    const frontPids = fronts.map((front) => front.process.child.pid);
    const uk = dataNodes.get("uk")!;
    await uk.process!.stop(30_000);
    assert.is(await uk.process!.exited, 0, "a clean stop");

    for (const region of ["uk", "uk", "us", "us"] as const) {
      const answer = await call("/v1/items", accessOf(region));
      if (region === "us") {
        assert.is(answer.status, 200, JSON.stringify(answer.body));
        assert.is(answer.body.items!.length, itemCounts.us);
        continue;
      }
      assert.is(answer.status, 503, JSON.stringify(answer.body));
      assert.is(answer.headers.get("content-type"), "application/json");
      // docs/decisions.md, "Regions": a remote DataService that does not answer is server.unavailable, without the
      // Retry-After of server.database_unavailable (the front's own database is fine).
      assert.is(answer.headers.get("retry-after"), null);
      const { timestamp, ...rest } = answer.body;
      assert.ok(!Number.isNaN(Date.parse(timestamp!)), "an ISO timestamp");
      assert.equal(rest, {
        status: "error",
        statusCode: 503,
        path: "/v1/items",
        message: messageFor("server.unavailable"),
        code: "server.unavailable",
        params: {},
        correlationId: answer.headers.get("x-correlation-id"),
      });
    }

    uk.process = startData("uk");
    await uk.process.line("data service ready");
    // The fronts reconnect on their own: poll (bounded) until a uk call passes; meanwhile only the clean 503.
    await until(
      "the uk region to answer again",
      async () => {
        const answer = await call("/v1/items", accessOf("uk"));
        if (answer.status === 503) {
          assert.is(answer.body.code, "server.unavailable");
          return false;
        }
        assert.is(answer.status, 200, JSON.stringify(answer.body));
        return true;
      },
      60_000,
      250,
    );
    for (let n = 0; n < 2; n++) {
      const answer = await call("/v1/items?limit=100", accessOf("uk"));
      assert.is(answer.status, 200, "on both fronts");
      assert.is(answer.body.items!.length, itemCounts.uk);
    }
    assert.equal(
      fronts.map((front) => front.process.child.pid),
      frontPids,
    );
    assert.ok(
      fronts.every((front) => front.process.child.exitCode === null),
      "the fronts were never restarted",
    );
  },
);

/** Whether a new TCP connection to `origin` is refused (its listener closed). */
function refuses(origin: string): Promise<boolean> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

Topology(
  "a front stopped mid-traffic: its in-flight requests finish 200, the balancer moves to the other front",
  async () => {
    const [survivor, stopping] = [fronts[0]!, fronts[1]!];
    const mark = api.routed.length;
    // Steady partner traffic through the balancer, both merchants, until told to stop.
    const statuses: number[] = [];
    let trafficOn = true;
    const traffic = Promise.all(
      Array.from({ length: 2 }, async (_, worker) => {
        for (let n = 0; trafficOn; n++) {
          const answer = await call("/v1/items", accessOf((n + worker) % 2 === 0 ? "uk" : "us"));
          statuses.push(answer.status);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );
    try {
      const servedBy = (name: string) =>
        api.routed.slice(mark).filter((routed) => routed.backend === name && routed.status === 200).length;
      await until("traffic on both fronts", () => servedBy(survivor.name) >= 3 && servedBy(stopping.name) >= 3);

      // A refresh in flight at the stopping front: its headers and half its body sent before SIGTERM, the rest after
      // the front has stopped accepting connections.
      const body = new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens.get("us")!.refresh,
        client_id: world.clientId,
        client_secret: world.clientSecret,
      }).toString();
      const tokenPath = new URL(as.token_endpoint!).pathname;
      const inFlight = http.request(`${stopping.origin}${tokenPath}`, {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": String(Buffer.byteLength(body)),
        },
      });
      const answered = new Promise<{ status: number; body: Json }>((resolve, reject) => {
        inFlight.on("response", (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Json }));
        });
        inFlight.on("error", reject);
      });
      await new Promise<void>((resolve) => inFlight.write(body.slice(0, 20), () => resolve()));
      const stopped = stopping.process.stop(60_000);
      await stopping.process.line("shutting down: finishing requests in flight", 30_000);
      await until("the stopping front to refuse new connections", () => refuses(stopping.origin), 30_000);
      inFlight.end(body.slice(20));
      const refreshed = await answered;
      assert.is(refreshed.status, 200, JSON.stringify(refreshed.body));
      assert.type(refreshed.body.access_token, "string");
      assert.type(refreshed.body.refresh_token, "string");
      await stopped;
      assert.is(await stopping.process.exited, 0, "a clean exit");
      tokens.set("us", { access: refreshed.body.access_token!, refresh: refreshed.body.refresh_token! });

      // Traffic goes on, on the survivor alone.
      const afterStop = statuses.length;
      await until("traffic after the stop", () => statuses.length >= afterStop + 6);
    } finally {
      trafficOn = false;
      await traffic;
    }
    assert.ok(statuses.length > 0);
    assert.equal(
      statuses.filter((status) => status !== 200),
      [],
      "every request of the traffic answered 200",
    );
    assert.equal(
      api.routed.slice(mark).filter((routed) => routed.status !== 200),
      [],
      "no request reached a closed front",
    );
    assert.ok(!api.healthy(stopping.name), "the balancer took the stopped front out");

    // The refresh token the stopping front issued works on the survivor (one control plane).
    const last = await oauth.processRefreshTokenResponse(
      as,
      client(),
      await oauth.refreshTokenGrantRequest(as, client(), clientAuth(), tokens.get("us")!.refresh, insecure),
    );
    assert.is(last["merchant_id"], world.merchants[1]!.companyId);
    const usCall = await call("/v1/items", last.access_token);
    assert.is(usCall.status, 200);
    assert.is(api.routed.at(-1)!.backend, survivor.name);
  },
);

/** A delivery as the receiver host reports it (test/support/webhook-receiver-host.ts). */
interface Arrival {
  webhookId: string;
  type: string | undefined;
  verified: boolean;
  companyId: number | undefined;
  orderId: string | undefined;
  from: string;
  bodySha256: string;
}

/** An order the partner placed, and in which step of the test. */
interface PlacedOrder {
  orderId: string;
  companyId: number;
  step: string;
}

/** A sandbox merchant of the partner's online-ordering app in one region, with the app's token for it. */
interface Shop {
  companyId: number;
  storeId: number;
  itemId: number;
  token: string;
}

/** One PICKUP order of one item at `shop`, through the balancer. */
function placeOrder(shop: Shop, externalReference: string): Promise<Response> {
  return fetch(`${api.url}/v1/online-orders`, {
    method: "POST",
    headers: { authorization: `Bearer ${shop.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      storeId: shop.storeId,
      lines: [{ itemId: shop.itemId, quantity: 1 }],
      fulfilment: { type: "PICKUP" },
      customer: { name: "Topology customer" },
      externalReference,
    }),
  });
}

/** The webhooks test's shops and orders, for the rolling restart after it. */
interface Ordering {
  shops: Map<"uk" | "us", Shop>;
  placed: PlacedOrder[];
  arrivals(): Arrival[];
}
let ordering: Ordering | undefined;

/** A `webhook received` line of the receiver host, read field by field. */
function arrivalOf(entry: Record<string, unknown>): Arrival {
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return {
    webhookId: text(entry["webhookId"]) ?? "",
    type: text(entry["type"]),
    verified: entry["verified"] === true,
    companyId: typeof entry["companyId"] === "number" ? entry["companyId"] : undefined,
    orderId: entry["orderId"] === undefined ? undefined : String(entry["orderId"]),
    from: text(entry["from"]) ?? "",
    bodySha256: text(entry["bodySha256"]) ?? "",
  };
}

/** An address as the receiver saw it, without the IPv4-mapped prefix of a dual-stack socket. */
const plainAddress = (address: string) => address.replace(/^::ffff:/, "");

Topology(
  "webhooks: only the workers deliver; every order event reaches the receiver host verified, once by webhook-id, while a front and a worker are stopped and after both are restarted",
  async () => {
    const receiver = receiverNode!;
    const stoppedFront = fronts[1]!;
    assert.ok(stoppedFront.process.child.exitCode !== null, "front B was stopped by the previous test");

    // The partner's online-ordering app and a sandbox merchant of its organization in each region (provisioned
    // through front A's internal port; a front opens no regional database, so each region's rows are seeded here).
    const operator = internalClient(fronts[0]!, credentials.operator);
    const created = await operator.createApp({
      organizationId: world.organizationId,
      name: "Topology orders app",
      product: Product.ONLINE_ORDER,
    });
    const pair = { clientId: created.sandbox!.clientId, clientSecret: created.sandbox!.clientSecret };
    const shops = new Map<"uk" | "us", Shop>();
    for (const [region, country] of [
      ["uk", "GB"],
      ["us", "US"],
    ] as const) {
      const provisioned = await operator.provisionSandboxMerchant({
        organizationId: world.organizationId,
        country,
        name: `Topology sandbox shop ${region}`,
      });
      const companyId = Number(provisioned.merchant!.companyId);
      assert.is(provisioned.merchant!.region, region);
      const sql = regionDatabases.get(region)!.sql;
      await seedMerchantData(sql, region, companyId, {
        storeCount: 1,
        itemCount: 2,
        salesDays: 0,
        onlineOrderCount: 0,
        now: new Date(),
      });
      await operator.updateMerchantStatus({ companyId: BigInt(companyId), provisioned: true });
      const [store] = await sql<{ id: number }[]>`
        select id from ${sql(`region_${region}.stores`)} where company_id = ${companyId} order by id limit 1`;
      const [item] = await sql<{ id: number }[]>`
        select id from ${sql(`region_${region}.items`)} where company_id = ${companyId} order by id limit 1`;
      // A sandbox token for the merchant, minted with the app's sandbox client credentials through the balancer.
      const minted = await fetch(`${api.url}/v1/token`, {
        method: "POST",
        body: new URLSearchParams({
          client_id: pair.clientId,
          client_secret: pair.clientSecret,
          merchant_id: String(companyId),
        }),
      });
      const token = (await minted.json()) as Json;
      assert.is(minted.status, 200, JSON.stringify(token));
      shops.set(region, {
        companyId,
        storeId: Number(store!.id),
        itemId: Number(item!.id),
        token: token.access_token!,
      });
    }

    // The partner registers a sandbox endpoint at the receiver host, and the receiver learns its secret.
    const registered = await fetch(`${api.url}/v1/webhook-endpoints`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${pair.clientId}:${pair.clientSecret}`).toString("base64")}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ url: receiver.url }),
    });
    const endpoint = (await registered.json()) as { endpoint: { id: string; url: string }; secret: string };
    assert.is(registered.status, 200, JSON.stringify(endpoint));
    assert.is(endpoint.endpoint.url, receiver.url);
    receiver.process!.child.stdin!.write(`${JSON.stringify({ secret: endpoint.secret })}\n`);
    await receiver.process!.line("secret added", 10_000);

    const placed: PlacedOrder[] = [];
    const arrivals = (): Arrival[] =>
      receiver
        .process!.entries()
        .filter((entry) => entry["msg"] === "webhook received")
        .map(arrivalOf);
    /** Places `perRegion` orders for each merchant through the balancer; the fronts that took them. */
    const placeOrders = async (step: string, perRegion: number): Promise<Set<string>> => {
      const mark = api.routed.length;
      for (let n = 0; n < perRegion; n++) {
        for (const region of ["uk", "us"] as const) {
          const shop = shops.get(region)!;
          const response = await placeOrder(shop, `${step}-${region}-${n}`);
          const answer = (await response.json()) as { order?: { id: number | string; status: string } };
          assert.is(response.status, 200, `${step}: ${JSON.stringify(answer)}`);
          assert.is(answer.order!.status, "PENDING");
          placed.push({ orderId: String(answer.order!.id), companyId: shop.companyId, step });
        }
      }
      return new Set(api.routed.slice(mark).map((routed) => routed.backend));
    };
    ordering = { shops, placed, arrivals };
    /** How long each step took, from its first order to its last event's arrival (the summary line). */
    const stepSeconds: Record<string, string> = {};
    let stepStarted = performance.now();
    /** Waits until every order placed so far has arrived at the receiver. */
    const everyOrderArrived = (step: string) =>
      until(
        `the events of "${step}" at the receiver`,
        () => {
          // Order ids count per region: an order is its merchant's id and its own.
          const seen = new Set(arrivals().map((arrival) => `${arrival.companyId}/${arrival.orderId}`));
          return placed.every((order) => seen.has(`${order.companyId}/${order.orderId}`));
        },
        30_000,
      ).then(() => {
        stepSeconds[step] = ((performance.now() - stepStarted) / 1000).toFixed(1);
        stepStarted = performance.now();
      });

    // 1. Front B stopped: the orders go through front A alone; their events still leave from the region outboxes.
    assert.equal([...(await placeOrders("front B stopped", 2))], [fronts[0]!.name]);
    await everyOrderArrived("front B stopped");

    // 2. The uk worker stopped (gracefully) while front B starts again: the us worker takes the uk worker's share,
    // nothing is lost. (The two restarts overlap, so the test pays for one process start, not two in a row.)
    const [ukWorker, usWorker] = [workers[0]!, workers[1]!];
    await ukWorker.process!.stop(30_000);
    assert.is(await ukWorker.process!.exited, 0, "a clean stop");
    stoppedFront.process = startRole(["--role", "front"], stoppedFront.env, { netns: stoppedFront.host.netns });
    const beforeStop = arrivals().length;
    await placeOrders("uk worker stopped", 2);
    await everyOrderArrived("uk worker stopped");
    if (network!.mode === "namespaces") {
      assert.equal(
        [
          ...new Set(
            arrivals()
              .slice(beforeStop)
              .map((arrival) => plainAddress(arrival.from)),
          ),
        ],
        [usWorker.host.address],
        "every delivery while the uk worker was stopped came from the us worker",
      );
    }

    // 3. Both restarted: the balancer takes front B back, the orders go through both fronts, and the events go on
    // arriving with both workers up.
    ukWorker.process = startWorker(ukWorker);
    await Promise.all([stoppedFront.process.line("partner API ready"), ukWorker.process.line("webhook worker ready")]);
    await until("the balancer to take front B back", () => api.healthy(stoppedFront.name), 30_000);
    assert.equal(
      [...(await placeOrders("front B and the uk worker restarted", 3))].sort(),
      fronts.map((front) => front.name).sort(),
      "both fronts took orders",
    );
    await everyOrderArrived("front B and the uk worker restarted");

    // Exactly the events expected. Standard Webhooks delivers at least once, so a receiver deduplicates by
    // webhook-id: a repeated id must be the same event, byte for byte; the distinct ids are one per order placed.
    const all = arrivals();
    assert.ok(
      all.every((arrival) => arrival.verified),
      "every delivery verified with standardwebhooks",
    );
    const byId = new Map<string, Arrival[]>();
    for (const arrival of all) byId.set(arrival.webhookId, [...(byId.get(arrival.webhookId) ?? []), arrival]);
    for (const [id, copies] of byId) {
      assert.match(id, /^msg_/);
      assert.is(new Set(copies.map((copy) => copy.bodySha256)).size, 1, `the copies of ${id} are one event`);
    }
    const events = [...byId.values()].map(([first]) => ({
      type: first!.type,
      orderId: String(first!.orderId),
      companyId: first!.companyId,
    }));
    const expected = placed.map((order) => ({
      type: "online_order.created",
      orderId: order.orderId,
      companyId: order.companyId,
    }));
    const byOrder = (a: { orderId: string; companyId?: number }, b: { orderId: string; companyId?: number }) =>
      `${a.companyId}/${a.orderId}`.localeCompare(`${b.companyId}/${b.orderId}`);
    assert.equal(events.sort(byOrder), expected.sort(byOrder), "one event per order placed, nothing else");
    assert.is(placed.length, 14);

    // Only the workers delivered: the fronts enqueue but never send.
    const senders = new Map<string, number>();
    for (const arrival of all)
      senders.set(plainAddress(arrival.from), (senders.get(plainAddress(arrival.from)) ?? 0) + 1);
    if (network!.mode === "namespaces") {
      const workerAddresses = workers.map((worker) => worker.host.address);
      assert.ok(
        [...senders.keys()].every((address) => workerAddresses.includes(address)),
        `senders: ${[...senders.keys()].join(", ")}`,
      );
    }
    console.log(
      `  webhooks: ${placed.length} events, ${all.length} deliveries (${all.length - byId.size} duplicates), by sender ${JSON.stringify(Object.fromEntries(senders))}; seconds per step ${JSON.stringify(stepSeconds)}`,
    );
  },
);

/** One call of the rolling restart's steady traffic, as the balancer answered it. */
interface TrafficAnswer {
  what: "items" | "order";
  region: "uk" | "us";
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  /** An order's externalReference. */
  reference?: string;
}

/** Whether `answer` is one the spec documents for a restart: 200, or a 503 with its code (and Retry-After for a database). */
function documentedDuringRestart(answer: TrafficAnswer): boolean {
  if (answer.status === 200) return true;
  if (answer.status !== 503) return false;
  // docs/decisions.md, "Regions": a data role that does not answer is server.unavailable (no Retry-After: the front's
  // own database is fine); a database that does not answer is server.database_unavailable with Retry-After.
  return (
    answer.code === "server.unavailable" ||
    (answer.code === "server.database_unavailable" && answer.retryAfter !== null)
  );
}

Topology(
  "a rolling restart: every front, data role and worker stopped and started again in turn under steady traffic; only 200 or a documented 503, no order lost or half-written, every order's event delivered once",
  async () => {
    const orders = ordering;
    assert.ok(orders, "the webhooks test set up the shops");
    const answers: TrafficAnswer[] = [];
    let trafficOn = true;
    let counter = 0;
    /** One read or (every third call) one order for `region`'s merchant through the balancer. */
    const trafficCall = async (region: "uk" | "us"): Promise<TrafficAnswer> => {
      const n = counter++;
      if (n % 3 !== 0) {
        const answer = await call("/v1/items", accessOf(region)).catch((error: unknown) => ({
          status: 0,
          headers: new Headers(),
          body: { code: String(error) },
        }));
        const retryAfter = answer.headers.get("retry-after");
        return { what: "items", region, status: answer.status, code: answer.body.code, retryAfter };
      }
      const shop = orders.shops.get(region)!;
      const reference = `rolling-${region}-${n}`;
      const response = await placeOrder(shop, reference);
      const text = await response.text();
      // The balancer's own refusal is plain text: kept as the code, so the check below names it.
      const body = (
        response.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : { code: text.trim() }
      ) as {
        order?: { id: number | string };
        code?: string;
      };
      if (response.status === 200) {
        orders.placed.push({ orderId: String(body.order!.id), companyId: shop.companyId, step: "rolling restart" });
      }
      const retryAfter = response.headers.get("retry-after");
      return { what: "order", region, status: response.status, code: body.code, retryAfter, reference };
    };
    // A fresh rate window: the earlier tests spent the apps' minutes.
    await programs!.toNextMinute();
    const traffic = Promise.all(
      (["uk", "us"] as const).map(async (region) => {
        while (trafficOn) {
          answers.push(await trafficCall(region));
          // Paced under the per-app limit (300 a minute): about 160 reads a minute for the FULL app, 80 orders for
          // the online-ordering app, however long the restarts take. A 429 here would be the test's, not a restart's.
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }),
    );
    const seconds: Record<string, string> = {};
    const restart = async (name: string, steps: () => Promise<void>) => {
      const started = performance.now();
      await steps();
      seconds[name] = ((performance.now() - started) / 1000).toFixed(1);
    };
    try {
      await until("traffic before the restarts", () => answers.length >= 12);
      for (const front of fronts) {
        await restart(front.name, async () => {
          await front.process.stop(60_000);
          assert.is(await front.process.exited, 0, `${front.name}: a clean stop`);
          front.process = startRole(["--role", "front"], front.env, { netns: front.host.netns });
          await front.process.line("partner API ready");
          await until(`the balancer to take ${front.name} back`, () => api.healthy(front.name), 60_000);
        });
      }
      for (const region of regionsServed) {
        const node = dataNodes.get(region)!;
        await restart(`data ${region}`, async () => {
          await node.process!.stop(60_000);
          assert.is(await node.process!.exited, 0, `data ${region}: a clean stop`);
          node.process = startData(region);
          await node.process.line("data service ready");
          // The fronts reconnect by themselves.
          const answers = async () => (await call("/v1/items", accessOf(region))).status === 200;
          await until(`the ${region} region to answer again`, answers, 60_000, 250);
        });
      }
      for (const worker of workers) {
        await restart(worker.name, async () => {
          await worker.process!.stop(60_000);
          assert.is(await worker.process!.exited, 0, `${worker.name}: a clean stop`);
          worker.process = startWorker(worker);
          await worker.process.line("webhook worker ready");
        });
      }
      const afterRestarts = answers.length;
      await until("traffic after the restarts", () => answers.length >= afterRestarts + 12);
    } finally {
      trafficOn = false;
      await traffic;
    }

    assert.equal(
      answers.filter((answer) => !documentedDuringRestart(answer)),
      [],
      "only 200 or a documented 503",
    );
    assert.ok(
      answers.filter((answer) => answer.what === "order" && answer.status === 200).length >= 4,
      "orders were taken",
    );
    // Nothing lost, nothing half-written: exactly the orders answered 200 are in their region's database.
    for (const region of ["uk", "us"] as const) {
      const sql = regionDatabases.get(region)!.sql;
      const rows = await sql<{ external_reference: string }[]>`
        select external_reference from ${sql(`region_${region}.online_orders`)}
        where company_id = ${orders.shops.get(region)!.companyId} and external_reference like 'rolling-%'`;
      const accepted = answers
        .filter((answer) => answer.what === "order" && answer.region === region && answer.status === 200)
        .map((answer) => answer.reference!);
      assert.equal(rows.map((row) => row.external_reference).sort(), accepted.sort(), `${region}: the orders stored`);
    }
    // Every order's event reached the receiver, verified; by webhook-id, once per order.
    const key = (order: { companyId?: number; orderId?: string }) => `${order.companyId}/${order.orderId}`;
    await until(
      "every order's event at the receiver",
      () => {
        const seen = new Set(orders.arrivals().map(key));
        return orders.placed.every((order) => seen.has(key(order)));
      },
      60_000,
    );
    const created = orders.arrivals().filter((arrival) => arrival.type === "online_order.created");
    assert.ok(
      created.every((arrival) => arrival.verified),
      "every delivery verified",
    );
    const distinct = new Map(created.map((arrival) => [arrival.webhookId, key(arrival)]));
    assert.equal([...distinct.values()].sort(), orders.placed.map(key).sort(), "one event per order placed");
    const byOutcome = new Map<string, number>();
    for (const answer of answers) {
      const outcome = `${answer.status}${answer.code ? ` ${answer.code}` : ""}`;
      byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    }
    console.log(
      `  rolling restart: ${answers.length} calls ${JSON.stringify(Object.fromEntries(byOutcome))}; seconds per restart ${JSON.stringify(seconds)}; ${created.length} deliveries of ${distinct.size} order events`,
    );
  },
);

Topology.run();
