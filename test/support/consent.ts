// What the consent site's plain-HTTP tests share: a tiny "browser" (a cookie jar and a source address sent as
// X-Forwarded-For, so throttle counters of one test run never meet another's in a shared Redis), the checks every
// page must pass (no framing), and worlds the OAuth support does not make: an approved production app and a live
// (non-demo) merchant with its owner and an employee.
import { randomBytes, randomInt } from "node:crypto";
import * as assert from "uvu/assert";
import { MerchantRole, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { Clock } from "../../src/runtime/clock.js";
import { credentialServiceOf, hiddenValue, newWorld, type TestApp, type World } from "./test-app.js";
import { reviewLinks } from "./app-links.js";

/** A random private address, sent as X-Forwarded-For (the test apps trust their own 127.0.0.1 as a proxy: TRUST_PROXY=127.0.0.1). */
export function randomAddress(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  /** The response's Set-Cookie lines, whole (attributes included). */
  setCookie: string[];
}

/** A cookie-carrying HTTP client of the consent site; redirects are never followed. */
export interface Browser {
  readonly cookies: Map<string, string>;
  address: string;
  get(pathOrUrl: string): Promise<Page>;
  /** A form POST; `origin` defaults to the site's own (AUTH_URL), `null` sends none; `headers` are added. */
  post(
    path: string,
    form: Record<string, string>,
    options?: { origin?: string | null; headers?: Record<string, string> },
  ): Promise<Page>;
  /** Fills the sign-in form of `page` (whose hidden csrf and return_to are used) and posts it. */
  signIn(page: Page, user: { email: string; password: string }): Promise<Page>;
}

export function createBrowser(test: TestApp, address = randomAddress()): Browser {
  const cookies = new Map<string, string>();
  const keep = (response: Response): Page["setCookie"] => {
    const lines = response.headers.getSetCookie();
    for (const line of lines) {
      const [pair] = line.split(";");
      const index = pair!.indexOf("=");
      const [name, value] = [pair!.slice(0, index), pair!.slice(index + 1)];
      if (value === "" || /Max-Age=0(;|$)/.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    return lines;
  };
  const headers = (browser: Browser): Record<string, string> => {
    const out: Record<string, string> = { "x-forwarded-for": browser.address };
    if (cookies.size > 0) out["cookie"] = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    return out;
  };
  const read = async (response: Response): Promise<Page> => {
    const setCookie = keep(response);
    return { status: response.status, headers: response.headers, html: await response.text(), setCookie };
  };
  const browser: Browser = {
    cookies,
    address,
    async get(pathOrUrl) {
      const url = pathOrUrl.startsWith("http") ? pathOrUrl : test.auth + pathOrUrl;
      return read(await fetch(url, { redirect: "manual", headers: headers(browser) }));
    },
    async post(path, form, options = {}) {
      const origin = options.origin === undefined ? test.config.urls.auth : options.origin;
      const extra: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
      if (origin !== null) extra["origin"] = origin;
      Object.assign(extra, options.headers);
      return read(
        await fetch(test.auth + path, {
          method: "POST",
          redirect: "manual",
          headers: { ...headers(browser), ...extra },
          body: new URLSearchParams(form),
        }),
      );
    },
    signIn(page, user) {
      return browser.post("/oauth/sign-in", {
        csrf: hiddenValue(page.html, "csrf"),
        return_to: hiddenValue(page.html, "return_to"),
        email: user.email,
        password: user.password,
      });
    },
  };
  return browser;
}

/** Every consent-site page refuses to be framed, by both mechanisms. */
export function assertNotFramable(page: Page): void {
  assert.is(page.headers.get("x-frame-options"), "DENY");
  assert.match(page.headers.get("content-security-policy") ?? "", /(^|;\s*)frame-ancestors 'none'(;|$)/);
}

/** The error page of `code`: its status, the code shown, no redirect anywhere, and no framing. */
export function assertErrorPage(page: Page, status: number, code: string): void {
  assert.is(page.status, status, `expected ${status} ${code}, got ${page.status}: ${page.html}`);
  assert.is(page.headers.get("location"), null, "an error page never redirects");
  assert.match(page.html, `Error code: <code>${code}</code>`);
  assert.not.match(page.html, /name="decision"/);
  assertNotFramable(page);
}

export interface ProductionWorld {
  organizationId: number;
  appId: string;
  sandboxClientId: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** A live (non-demo) merchant with an owner and an employee. */
  companyId: number;
  owner: { email: string; password: string };
  employee: { email: string; password: string };
}

let serial = 0;

/** An organization with a FULL app that went through review (so it has a production client), and a live merchant. */
export async function newProductionWorld(test: TestApp, clock: Clock, redirectUri: string): Promise<ProductionWorld> {
  const credentials = credentialServiceOf(test, clock);
  const name = `production test ${process.pid} ${++serial}`;
  const { organization } = await credentials.createOrganization({ name });
  const organizationId = organization!.organizationId!;
  const created = await credentials.createApp({
    organizationId,
    name: `Live app ${serial}`,
    product: Product.FULL,
    ...reviewLinks,
  });
  const appId = created.app!.appId!;
  await credentials.setRedirectUris({ appId, redirectUris: [redirectUri] });
  await credentials.submitApp({ appId });
  const approved = await credentials.approveApp({ appId });
  const { merchant } = await credentials.createMerchant({ name: `Live shop ${serial}`, region: "uk" });
  const companyId = merchant!.companyId!;
  const user = async (role: MerchantRole, who: string) =>
    (await credentials.createMerchantUser({ companyId, email: uniqueEmail(who), role })).user!;
  const owner = await user(MerchantRole.OWNER, "owner");
  const employee = await user(MerchantRole.EMPLOYEE, "employee");
  return {
    organizationId: Number(organizationId),
    appId,
    sandboxClientId: created.sandbox!.clientId!,
    clientId: approved.production!.clientId!,
    clientSecret: approved.production!.clientSecret!,
    redirectUri,
    companyId: Number(companyId),
    owner: { email: owner.email!, password: owner.password! },
    employee: { email: employee.email!, password: employee.password! },
  };
}

/**
 * An email no other test run uses: sign-in throttles count per email in the key-value store, and a shared Redis
 * outlives the database (where a sandbox owner's email, owner.<company id>@…, repeats from run to run).
 */
export function uniqueEmail(who: string): string {
  return `${who}.${process.pid}.${randomBytes(6).toString("hex")}@shop.test`;
}

/** A sandbox world (the OAuth support's) whose owner and employee have emails of their own (see uniqueEmail). */
export async function newSandboxWorld(
  test: TestApp,
  clock: Clock,
  redirectUri: string,
  product = Product.FULL,
): Promise<World> {
  const world = await newWorld(test, clock, redirectUri, product);
  const credentials = credentialServiceOf(test, clock);
  const login = async (role: MerchantRole, who: string) => {
    const { user } = await credentials.createMerchantUser({
      companyId: BigInt(world.companyId),
      email: uniqueEmail(who),
      role,
    });
    return { email: user!.email!, password: user!.password! };
  };
  return {
    ...world,
    owner: await login(MerchantRole.OWNER, "owner"),
    employee: await login(MerchantRole.EMPLOYEE, "employee"),
  };
}

/** An authorize URL from explicit parameters (undefined leaves one out), in the order given. */
export function authorizeWith(test: TestApp, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  return `${test.auth}/oauth/authorize?${query}`;
}
