// The demo world: an organization with one approved app per product, one app in review, two sandbox
// merchants and two live merchants with business data, provisioned through the credential owner's plain interface
// (the same functions its CredentialService answers with), and the console
// account that owns the organization; written to $DATA_DIR/demo.json (secrets included: the file is created
// readable by its owner only).
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type postgres from "postgres";
import { createAccessRequests, createSandboxGrants } from "../grant/index.js";
import type { Config } from "../config/config.js";
import { richMerchantProfile, seedMerchantData } from "../data/index.js";
import { systemClock, type Clock } from "../runtime/clock.js";
import { cryptoIds, type IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import {
  createCredentialOwner,
  findMerchantUserByEmail,
  type CredentialEnvironment,
  type Credentials,
  type MerchantUser,
  type Product,
} from "../credential/index.js";
import { admitToProgram, ensureOrganizationOwner } from "../console/index.js";
import type { Region } from "../config/regions.js";

/** Where the demo's OAuth client sends the browser back; registered on every app of the demo. */
export const demoRedirectUri = "http://127.0.0.1:9999/callback";
/** The demo apps' website, privacy policy and terms (review needs all three; the consent screen links them). */
export const demoLinks = {
  websiteUrl: "https://partner.example.com/",
  privacyPolicyUrl: "https://partner.example.com/privacy",
  termsUrl: "https://partner.example.com/terms",
} as const;

export interface DemoPair {
  clientId: string;
  clientSecret: string;
}
export interface DemoLogin {
  email: string;
  password: string;
}
export interface DemoApp {
  appId: string;
  sandbox: DemoPair;
  production: DemoPair;
}
export interface DemoAdsrApp {
  appId: string;
  sandbox: DemoPair & { apiKey: string };
  production: DemoPair & { apiKey: string };
}

/** The contract of demo.json (docs/development.md, "The demo world"): tests and people rely on these keys. */
export interface DemoWorld {
  baseUrl: string;
  authUrl: string;
  grpcUrl: string;
  redirectUri: string;
  organizationId: number;
  /** The console login of the organization's owner (a verified developer account, OWNER of organizationId). */
  console: DemoLogin;
  apps: {
    full: DemoApp;
    onlineOrder: DemoApp;
    adsr: DemoAdsrApp;
    inReview: { appId: string; product: "FULL"; sandbox: DemoPair };
  };
  merchants: {
    sandbox: Array<{ companyId: number; region: Region; owner: DemoLogin }>;
    live: Array<{ companyId: number; region: Region; owner: DemoLogin; employee: DemoLogin; storeIds: number[] }>;
  };
}

export interface ProvisionDemoOptions {
  config: Config;
  logger: Logger;
  /** The control database's client. */
  control: postgres.Sql;
  /** Each region's database (app.regionDatabases). */
  regionDatabases: ReadonlyMap<Region, { sql: postgres.Sql }>;
  clock?: Clock;
  ids?: IdSource;
}

/** The path of demo.json under DATA_DIR. */
export function demoFilePath(config: Config): string {
  return join(config.dataDir, "demo.json");
}

/**
 * Provisions the demo world unless demo.json already describes one that still works against this database (every
 * secret, key and login verifies), and writes demo.json. Idempotent: a second run returns the same world.
 */
export async function provisionDemo(options: ProvisionDemoOptions): Promise<DemoWorld> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const { credentials: client } = createCredentialOwner(
    { config, logger, clock, ids: options.ids ?? cryptoIds },
    {
      sql: options.control,
      regionSql: (region) => options.regionDatabases.get(region)?.sql,
      sandboxGrants: createSandboxGrants(),
    },
  );
  const path = demoFilePath(config);
  const urls = demoUrlsOf(config);
  const existing = await readWorld(path);
  if (existing && (await stillWorks(client, existing))) {
    const world = { ...existing, ...urls };
    // A world provisioned before reveals were recorded gets its secrets marked as shown now (idempotent).
    await recordDemoSecretsShown(client, world);
    // A world provisioned before access requests existed gets its approval now (idempotent).
    await grantDemoAccess(options, world.apps.adsr.appId, world.merchants.live[0]!);
    // A world provisioned before gave its ADSR app the redirect URI it never uses: removed (idempotent).
    await client.setRedirectUris(world.apps.adsr.appId, []);
    // A world provisioned before it had a console login gets one now (kept when it still signs in).
    world.console = await consoleOwner(options, world.organizationId, existing.console, clock);
    await writeWorld(path, world);
    logger.info("demo world already provisioned", { path, organizationId: world.organizationId });
    return world;
  }
  const provisioned = await provisionWorld(client, options, new Date(clock.now()));
  await recordDemoSecretsShown(client, provisioned);
  const world = {
    ...urls,
    ...provisioned,
    console: await consoleOwner(options, provisioned.organizationId, undefined, clock),
  };
  await writeWorld(path, world);
  logger.info("demo world provisioned", { path, organizationId: world.organizationId });
  return world;
}

/**
 * The demo's secrets are in demo.json, which scripts and the example read: they count as shown, so the console offers
 * a rotation (with its overlap) rather than a reveal that would replace the production secret the file holds.
 */
async function recordDemoSecretsShown(client: Credentials, world: Pick<DemoWorld, "apps">): Promise<void> {
  for (const app of [world.apps.full, world.apps.onlineOrder, world.apps.adsr, world.apps.inReview])
    await client.recordSecretsShown(app.appId, "demo.json");
}

/** Where this start of the program answers, as demo.json records it. */
function demoUrlsOf(config: Config): Pick<DemoWorld, "baseUrl" | "authUrl" | "grpcUrl"> {
  return {
    baseUrl: config.urls.base,
    authUrl: config.urls.auth,
    grpcUrl: `http://${config.listen.host.includes(":") ? `[${config.listen.host}]` : config.listen.host}:${config.listen.grpcPort}`,
  };
}

/**
 * A start without --demo over an existing demo.json: its URLs are made this start's (PORT, AUTH_PORT, BASE_URL...),
 * so what reads them (the example partner app, the README's first call) follows the server's real ports instead of
 * those of the start that provisioned it. Nothing else in the file changes; true when it was rewritten.
 */
export async function refreshDemoUrls(config: Config): Promise<boolean> {
  const path = demoFilePath(config);
  const existing = await readWorld(path);
  if (!existing) return false;
  const urls = demoUrlsOf(config);
  if (existing.baseUrl === urls.baseUrl && existing.authUrl === urls.authUrl && existing.grpcUrl === urls.grpcUrl)
    return false;
  await writeWorld(path, { ...existing, ...urls });
  return true;
}

/**
 * The lines to print after provisioning: where the file is, a first call to try, and how to act as staff locally:
 * `npm run staff` for the program (development mode keeps its credential), a staff credential of one's own for the
 * other staff RPCs (app review).
 * `internal.grpcUrl` is the internal port as bound (GRPC_PORT=0 picks one), else demo.json's.
 */
export function describeDemo(
  world: DemoWorld,
  path: string,
  internal: { credentialsFile: string; grpcUrl?: string },
): string {
  const sandbox = world.apps.full.sandbox;
  const merchant = world.merchants.sandbox[0]!;
  return [
    `demo world written to ${path} (it holds secrets; keep it private)`,
    "a first call: a sandbox access token for the FULL app and a sandbox merchant",
    `  curl -s ${world.baseUrl}v1/token -d client_id=${sandbox.clientId} -d client_secret=<apps.full.sandbox.clientSecret from demo.json> -d merchant_id=${merchant.companyId}`,
    "the ADSR production key reads the first live merchant's daily sales (an approved access request)",
    `  curl -s -H 'X-API-Key: <apps.adsr.production.apiKey from demo.json>' '${world.baseUrl}v1/reports/daily-sales?companyId=${world.merchants.live[0]!.companyId}&from=<YYYY-MM-DD>&to=<YYYY-MM-DD>'`,
    "program applications and agreement versions, as the staff a local run has none of (development mode):",
    "  npm run staff -- applications    then    npm run staff -- approve <id>",
    "other staff RPCs (app review; docs/console-walkthrough.md), with a staff credential of your own:",
    "  npm run credential -- staff staff-local",
    `  then append the printed "staff staff-local ..." line to ${internal.credentialsFile} (re-read within 5 seconds)`,
    `  npx buf curl --protocol grpc --http2-prior-knowledge -H 'X-Service-Credential: <the printed credential>' -d '{}' ${internal.grpcUrl ?? world.grpcUrl}/partnerapi.v1.ConsoleService/ListProgramApplications`,
  ].join("\n");
}

/**
 * Makes the ADSR app's access request for every store of `merchant` and approves it as the merchant's owner, unless
 * an approved one exists already. Through the same module the GrantService and the consent site use.
 */
async function grantDemoAccess(
  options: ProvisionDemoOptions,
  appId: string,
  merchant: DemoWorld["merchants"]["live"][number],
): Promise<void> {
  if (merchant.storeIds.length === 0) return;
  const requests = createAccessRequests({
    sql: options.control,
    config: options.config,
    clock: options.clock ?? systemClock,
    logger: options.logger,
    regionSql: (region) => options.regionDatabases.get(region)?.sql,
    // The grant owner's error domain, as the consent site spells it.
    domain: "partnerapi.v1.GrantService",
  });
  if (await requests.access(appId, merchant.companyId)) return;
  const owner = await findMerchantUserByEmail(options.control, merchant.owner.email);
  if (!owner) throw new Error(`demo: no owner login ${merchant.owner.email}`);
  const open = (await requests.listForApp(appId)).find(
    (row) => row.company_id === merchant.companyId && row.state === "PENDING",
  );
  const request =
    open ?? (await requests.create({ appId, companyId: merchant.companyId, storeIds: merchant.storeIds }));
  await requests.approve(request.id, owner.userId, []);
}

/** The console account that owns the demo organization: `owner.<organization>@demo-console.partner-api.test`. */
export function demoConsoleEmail(organizationId: number): string {
  return `owner.${organizationId}@demo-console.partner-api.test`;
}

/**
 * The demo organization's console owner (`owner.<organization>@demo-console.partner-api.test`), so a newcomer can
 * sign in to the console as the organization that owns the demo apps; demo.json's login is kept while it works. It
 * is admitted to the partner program (approved, the active agreement signed) on every run.
 */
async function consoleOwner(
  options: ProvisionDemoOptions,
  organizationId: number,
  known: DemoLogin | undefined,
  clock: Clock,
): Promise<DemoLogin> {
  const login = await ensureOrganizationOwner({
    sql: options.control,
    organizationId,
    email: demoConsoleEmail(organizationId),
    known,
    now: new Date(clock.now()),
    ids: options.ids ?? cryptoIds,
    passwordHashCost: options.config.passwordHashCost,
  });
  // The owner of four approved apps is in the program: approved, the active agreement signed (it creates apps
  // without `npm run staff`; docs/decisions.md, "The demo's console owner is admitted").
  await admitToProgram({
    sql: options.control,
    email: login.email,
    companyName: "Demo organization",
    now: new Date(clock.now()),
  });
  return login;
}

async function provisionWorld(
  client: Credentials,
  options: ProvisionDemoOptions,
  now: Date,
): Promise<Omit<DemoWorld, "baseUrl" | "authUrl" | "grpcUrl" | "console">> {
  const organization = await client.createOrganization("Demo organization");
  const organizationId = organization.id;

  const approvedApp = async (name: string, product: Product) => {
    const created = await client.createApp(organizationId, { name, product, ...demoLinks });
    const appId = created.app.appId;
    // An ADSR app calls with API keys and never uses the OAuth redirect: it gets no redirect URI.
    if (product !== "ADSR") await client.setRedirectUris(appId, [demoRedirectUri]);
    await client.submitApp(appId);
    const { production } = await client.approveApp(appId);
    return {
      appId,
      sandbox: { clientId: created.sandbox.clientId, clientSecret: created.sandbox.clientSecret },
      production: { clientId: production!.clientId, clientSecret: production!.clientSecret },
    };
  };
  const full = await approvedApp("Demo Full", "FULL");
  const onlineOrder = await approvedApp("Demo Online Order", "ONLINE_ORDER");
  const adsrApp = await approvedApp("Demo ADSR", "ADSR");
  const key = async (environment: CredentialEnvironment) =>
    (await client.createApiKey(adsrApp.appId, { name: `demo ${environment.toLowerCase()}`, environment })).apiKey;
  const adsr: DemoAdsrApp = {
    appId: adsrApp.appId,
    sandbox: { ...adsrApp.sandbox, apiKey: await key("SANDBOX") },
    production: { ...adsrApp.production, apiKey: await key("PRODUCTION") },
  };
  const review = await client.createApp(organizationId, { name: "Demo In Review", product: "FULL", ...demoLinks });
  await client.setRedirectUris(review.app.appId, [demoRedirectUri]);
  await client.submitApp(review.app.appId);

  // Two sandbox merchants, so merchant_id cannot be inferred at POST /v1/token.
  const sandbox: DemoWorld["merchants"]["sandbox"] = [];
  for (const [country, name] of [
    ["GB", "Demo Sandbox London"],
    ["US", "Demo Sandbox Austin"],
  ] as const) {
    const provisioned = await client.provisionSandboxMerchant(organizationId, { country, name });
    sandbox.push({
      companyId: provisioned.merchant.company_id,
      region: provisioned.merchant.region,
      owner: { email: provisioned.owner.email, password: provisioned.owner.password },
    });
  }

  const live: DemoWorld["merchants"]["live"] = [];
  for (const [region, name] of [
    ["us", "Demo Diner New York"],
    ["in", "Demo Cafe Bengaluru"],
  ] as const) {
    const merchant = await client.createMerchant({ name, region });
    const companyId = merchant.company_id;
    const user = async (role: MerchantUser["role"], who: string) => {
      const made = await client.createMerchantUser(companyId, {
        email: `${who}.${companyId}@demo.partner-api.test`,
        role,
      });
      return { email: made.email, password: made.password };
    };
    const owner = await user("OWNER", "owner");
    const employee = await user("EMPLOYEE", "employee");
    const regional = options.regionDatabases.get(region);
    let storeIds: number[] = [];
    if (regional) {
      storeIds = await seedMerchantData(regional.sql, region, companyId, {
        ...richMerchantProfile(now, { name: "Demo Employee", email: employee.email }),
        decisionSeconds: options.config.onlineOrders.decisionSeconds,
      });
      await client.updateMerchantStatus(companyId, { provisioned: true });
    }
    live.push({ companyId, region, owner, employee, storeIds });
  }
  // The ADSR production key reads live[0]: an access request for its stores, approved by its owner.
  await grantDemoAccess(options, adsr.appId, live[0]!);
  return {
    redirectUri: demoRedirectUri,
    organizationId,
    apps: {
      full,
      onlineOrder,
      adsr,
      inReview: {
        appId: review.app.appId,
        product: "FULL",
        sandbox: { clientId: review.sandbox.clientId, clientSecret: review.sandbox.clientSecret },
      },
    },
    merchants: { sandbox, live },
  };
}

/** True when every secret, key and login of `world` still verifies (the database was not replaced since). */
async function stillWorks(client: Credentials, world: DemoWorld): Promise<boolean> {
  try {
    const pairs = [
      world.apps.full.sandbox,
      world.apps.full.production,
      world.apps.onlineOrder.sandbox,
      world.apps.onlineOrder.production,
      world.apps.adsr.sandbox,
      world.apps.adsr.production,
      world.apps.inReview.sandbox,
    ];
    for (const pair of pairs) await client.verifyClientCredentials(pair.clientId, pair.clientSecret);
    for (const key of [world.apps.adsr.sandbox.apiKey, world.apps.adsr.production.apiKey])
      await client.verifyApiKey(key);
    const logins = [
      ...world.merchants.sandbox.map((m) => m.owner),
      ...world.merchants.live.flatMap((m) => [m.owner, m.employee]),
    ];
    for (const login of logins) await client.verifyMerchantUser(login.email, login.password);
    return true;
  } catch {
    return false;
  }
}

async function readWorld(path: string): Promise<DemoWorld | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as DemoWorld;
  } catch {
    return undefined;
  }
}

/** Writes demo.json atomically (temporary file, then rename), readable by its owner only. */
async function writeWorld(path: string, world: DemoWorld): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(world, null, 2) + "\n", { mode: 0o600 });
  await rename(temporary, path);
}
