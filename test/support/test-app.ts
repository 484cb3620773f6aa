// What the OAuth tests share: the real app on free ports (BASE_URL and AUTH_URL must name the real ports, so they
// are picked before the start), and a world to connect: an organization, a FULL app with its sandbox client and a
// redirect URI, a sandbox merchant in the directory (its regional data not seeded) with its owner login, and an
// employee login.
import { testPasswordHashCost } from "./password-cost.js";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CredentialService, MerchantRole, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { startApp, type RunningApp } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config/config.js";
import type { Region } from "../../src/config/regions.js";
import type { Clock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { createLogger, silentLogger } from "../../src/runtime/logger.js";
import type { MailTransport } from "../../src/console/index.js";
import { createInProcessClient, type InProcessClient } from "../../src/runtime/service-caller.js";
import { createCredentialService } from "../../src/credential/index.js";
import { createSandboxGrants } from "../../src/grant/index.js";
import { writeInternalCredentials, type InternalCredentials } from "./internal.js";
import { seedEmbeddedDatabase } from "./embedded-template.js";
import { dropDatabase, freshDatabaseUrl } from "./storage.js";
import { freePort } from "../../scripts/free-port.mjs";
import { reviewLinks } from "./app-links.js";

export { freePort };

export interface TestApp {
  app: RunningApp;
  /** One credential per role for the internal port (`grpcTransport(test.app.grpc.port, test.internal.staff)`). */
  internal: InternalCredentials;
  config: Config;
  base: string;
  auth: string;
  /** The console site (CONSOLE_URL: mailed links point here). */
  console: string;
  logs: string[];
  stop(): Promise<void>;
}

/**
 * Starts the whole program on free ports with `clock`; `redis` uses TEST_REDIS_URL when set (real time only), under
 * a key prefix of this app's own: counters keyed by database ids (which restart in each fresh database) or by the
 * loopback address are then never shared with another app, another test file running beside it or an earlier run.
 * `mailTransport` replaces the console's (default: the log transport).
 */
export async function startTestApp(options: {
  clock: Clock;
  redis: boolean;
  env?: Record<string, string>;
  mailTransport?: MailTransport;
  /** How webhook hosts resolve (a rebinding DNS); default: the system's. */
  webhookResolver?: (hostname: string) => Promise<string[]>;
}): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), "pa-oauth-"));
  // A database the test brings (a private server it stops and starts) is used as it is: no scratch database is
  // made beside it on the shared server, nor dropped at the end, and no embedded one is seeded.
  const given = options.env?.["DATABASE_URL"];
  const databaseUrl = given ? undefined : await freshDatabaseUrl();
  const [port, authPort, consolePort] = [await freePort(), await freePort(), await freePort()];
  const internal = await writeInternalCredentials(dataDir);
  if (!databaseUrl && !given) await seedEmbeddedDatabase(dataDir);
  const config = loadConfig({
    HOST: "127.0.0.1",
    PORT: String(port),
    AUTH_PORT: String(authPort),
    CONSOLE_PORT: String(consolePort),
    GRPC_PORT: "0",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    REDIS_URL: options.redis ? process.env["TEST_REDIS_URL"] : undefined,
    SHUTDOWN_GRACE_SECONDS: "1",
    SHUTDOWN_DRAIN_SECONDS: "0",
    // The suites count exactly against real Redis on a machine that may be saturated (CI runs other work beside
    // them): Redis's answer must not lose a race with the 250 ms fallback timer. The fallback has its own tests.
    REDIS_COUNT_TIMEOUT_MS: "10000",
    PASSWORD_HASH_COST: testPasswordHashCost,
    ...options.env,
  });
  const logs: string[] = [];
  const app = await startApp({
    config,
    clock: options.clock,
    logger: createLogger({ level: "debug", write: (line) => logs.push(line), now: options.clock.now }),
    mailTransport: options.mailTransport,
    webhookResolver: options.webhookResolver,
    keyValuePrefix: `pa_test_${process.pid}_${randomBytes(4).toString("hex")}:`,
  });
  return {
    app,
    internal,
    config,
    base: `http://127.0.0.1:${port}`,
    auth: `http://127.0.0.1:${authPort}`,
    console: `http://127.0.0.1:${consolePort}`,
    logs,
    async stop() {
      // A stop that hangs fails its hook after minutes; these say which step it hung in.
      await named(
        "app.stop()",
        () => app.stop(),
        () => lastShutdownStep(logs),
      );
      // A step that overran its bound or failed is passed by the app (src/runtime/closers.ts): say which.
      for (const line of logs)
        if (/"msg":"shutdown step (overran|failed)/.test(line)) console.error(`  test app: ${line}`);
      if (databaseUrl) await named(`dropping ${databaseUrl}`, () => dropDatabase(databaseUrl));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `step`, printing its name (and what `detail` says of it) once a minute while it has not finished. */
async function named<T>(name: string, step: () => Promise<T>, detail?: () => string | undefined): Promise<T> {
  const started = performance.now();
  const watch = setInterval(() => {
    const more = detail?.();
    const seconds = Math.round((performance.now() - started) / 1000);
    console.error(`  test app: still in ${name} after ${seconds} s${more ? ` (${more})` : ""}`);
  }, 60_000);
  watch.unref();
  try {
    return await step();
  } finally {
    clearInterval(watch);
  }
}

/** The step a stopping app's log last named (src/runtime/closers.ts), for a stop that hangs. */
function lastShutdownStep(logs: readonly string[]): string | undefined {
  for (let i = logs.length - 1; i >= 0; i--) {
    const entry = JSON.parse(logs[i]!) as { msg?: string; step?: string };
    if (entry.msg === "shutdown step") return `closing ${entry.step}`;
  }
  return undefined;
}

export interface World {
  organizationId: number;
  appId: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  companyId: number;
  owner: { email: string; password: string };
  employee: { email: string; password: string };
}

/** A CredentialService client: `credentials.createApp({ ... })` resolves with the response message. */
export type Credentials = InProcessClient<typeof CredentialService>;

/**
 * The CredentialService on the test app's control database and `clock`, called in process (createInProcessClient:
 * the way the app's own callers reach a service) with a silent logger. The one way the supports and tests provision
 * through it. With `regions` (the default, as in the app) a new sandbox merchant is seeded in its region's database
 * and marked provisioned; `regions: false` leaves the region databases out, so it stays unprovisioned (newWorld).
 */
export function credentialServiceOf(test: TestApp, clock: Clock, options: { regions?: boolean } = {}): Credentials {
  const regionSql =
    options.regions === false ? undefined : (region: Region) => test.app.regionDatabases.get(region)?.sql;
  const impl = createCredentialService(
    { config: test.config, clock, ids: cryptoIds, logger: silentLogger },
    { sql: test.app.control.sql, regionSql, sandboxGrants: createSandboxGrants() },
  );
  return createInProcessClient(CredentialService, impl);
}

let serial = 0;

/** Provisions a world through the CredentialService (in process, on the app's control database and clock only). */
export async function newWorld(
  test: TestApp,
  clock: Clock,
  redirectUri: string,
  product = Product.FULL,
): Promise<World> {
  const credentials = credentialServiceOf(test, clock, { regions: false });
  const name = `oauth test ${process.pid} ${++serial}`;
  const { organization } = await credentials.createOrganization({ name });
  const organizationId = organization!.organizationId!;
  const { merchant, owner } = await credentials.provisionSandboxMerchant({
    organizationId,
    country: "GB",
    name: `Shop ${serial}`,
  });
  const created = await credentials.createApp({ organizationId, name: `App ${serial}`, product, ...reviewLinks });
  const appId = created.app!.appId!;
  await credentials.setRedirectUris({ appId, redirectUris: [redirectUri] });
  const employee = await credentials.createMerchantUser({
    companyId: merchant!.companyId,
    email: `employee.${process.pid}.${serial}@shop.test`,
    role: MerchantRole.EMPLOYEE,
  });
  return {
    organizationId: Number(organizationId),
    appId,
    clientId: created.sandbox!.clientId!,
    clientSecret: created.sandbox!.clientSecret!,
    redirectUri,
    companyId: Number(merchant!.companyId),
    owner: { email: owner!.email!, password: owner!.password! },
    employee: { email: employee.user!.email!, password: employee.user!.password! },
  };
}

/** The value of a hidden input in a page. */
export function hiddenValue(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  if (!match) throw new Error(`no hidden ${name} in the page`);
  return match[1]!
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

/** name=value pairs of a response's Set-Cookie headers. */
export function setCookies(response: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const index = pair!.indexOf("=");
    out.set(pair!.slice(0, index), pair!.slice(index + 1));
  }
  return out;
}

export const cookieHeader = (cookies: Map<string, string>) =>
  [...cookies]
    .filter(([, value]) => value !== "")
    .map(([name, value]) => `${name}=${value}`)
    .join("; ");

/** Signs in on the consent site as `user`, over plain HTTP; the cookies of the session. */
export async function signIn(
  test: TestApp,
  user: { email: string; password: string },
  authorizeUrl: string,
): Promise<Map<string, string>> {
  const page = await fetch(authorizeUrl);
  const cookies = setCookies(page);
  const html = await page.text();
  const form = new URLSearchParams({
    csrf: hiddenValue(html, "csrf"),
    return_to: hiddenValue(html, "return_to"),
    email: user.email,
    password: user.password,
  });
  const signedIn = await fetch(`${test.auth}/oauth/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(cookies), origin: test.auth },
    body: form,
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  for (const [name, value] of setCookies(signedIn)) cookies.set(name, value);
  return cookies;
}

export function authorizeUrl(test: TestApp, world: World, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: world.clientId,
    redirect_uri: world.redirectUri,
    state: "st-1",
    ...extra,
  });
  return `${test.auth}/oauth/authorize?${query}`;
}

/** Approves (or denies) a consent request over plain HTTP as `user`; the 302's Location. */
export async function decide(
  test: TestApp,
  world: World,
  options: {
    user?: { email: string; password: string };
    extra?: Record<string, string>;
    decision?: "allow" | "deny";
  } = {},
): Promise<URL> {
  const url = authorizeUrl(test, world, options.extra);
  const cookies = await signIn(test, options.user ?? world.owner, url);
  const consent = await fetch(url, { headers: { cookie: cookieHeader(cookies) } });
  const html = await consent.text();
  if (consent.status !== 200) throw new Error(`consent answered ${consent.status}: ${html}`);
  const form = new URLSearchParams();
  for (const name of [
    "csrf",
    "response_type",
    "client_id",
    "redirect_uri",
    "state",
    "scope",
    "code_challenge",
    "code_challenge_method",
  ]) {
    if (html.includes(`name="${name}"`)) form.set(name, hiddenValue(html, name));
  }
  form.set("decision", options.decision ?? "allow");
  const answer = await fetch(`${test.auth}/oauth/authorize/decision`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(cookies), origin: test.auth },
    body: form,
  });
  if (answer.status !== 302) throw new Error(`decision answered ${answer.status}: ${await answer.text()}`);
  return new URL(answer.headers.get("location")!);
}
