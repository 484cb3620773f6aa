// What the console site's suites share: a cookie-carrying HTTP client of CONSOLE_URL (redirects not followed, each
// browser from a source address of its own), the CSRF token of a page's forms, and the way to an admitted
// developer (signed up through the pages, verified by the mailed link, program approved by staff, agreement signed).
import * as assert from "uvu/assert";
import type { Client } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { mailedLink } from "./console.js";
import { randomAddress } from "./consent.js";
import { hiddenValue, type TestApp } from "./test-app.js";
import { reviewLinks } from "./app-links.js";

export interface SitePage {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
  setCookie: string[];
}

export interface SiteBrowser {
  readonly cookies: Map<string, string>;
  /** The source address it browses from (X-Forwarded-For; the test apps trust 127.0.0.1 as a proxy). */
  readonly address: string;
  language?: string;
  get(path: string): Promise<SitePage>;
  /** A form POST with the CSRF token of `from` (a page with a form) unless `form.csrf` is given. */
  post(path: string, form: Record<string, string>, from?: SitePage): Promise<SitePage>;
}

export function createSiteBrowser(test: TestApp, language?: string): SiteBrowser {
  const cookies = new Map<string, string>();
  const address = randomAddress();
  const headers = (): Record<string, string> => {
    const out: Record<string, string> = { "x-forwarded-for": address };
    if (browser.language) out["accept-language"] = browser.language;
    if (cookies.size > 0) out["cookie"] = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    return out;
  };
  const read = async (response: Response): Promise<SitePage> => {
    const setCookie = response.headers.getSetCookie();
    for (const line of setCookie) {
      const [pair] = line.split(";");
      const index = pair!.indexOf("=");
      const [name, value] = [pair!.slice(0, index), pair!.slice(index + 1)];
      if (value === "" || /Max-Age=0(;|$)/.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    return {
      status: response.status,
      headers: response.headers,
      html: await response.text(),
      location: response.headers.get("location"),
      setCookie,
    };
  };
  const browser: SiteBrowser = {
    cookies,
    address,
    language,
    async get(path) {
      return read(await fetch(test.console + path, { redirect: "manual", headers: headers() }));
    },
    async post(path, form, from) {
      const csrf = form["csrf"] ?? (from ? hiddenValue(from.html, "csrf") : "");
      return read(
        await fetch(test.console + path, {
          method: "POST",
          redirect: "manual",
          headers: {
            ...headers(),
            "content-type": "application/x-www-form-urlencoded",
            origin: test.config.urls.console,
          },
          body: new URLSearchParams({ ...form, csrf }),
        }),
      );
    },
  };
  return browser;
}

/** Text of the page without tags (entities decoded), for matching what a reader sees. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/[\u2066\u2068\u2069]/g, "") // bidi isolates (LRI, FSI, PDI) around a left-to-right value in a sentence
    .replace(/\s+/g, " ");
}

/** The text of the element with `id` (a value shown once: a secret, a password). */
export function shownValue(html: string, id: string): string {
  const match = new RegExp(`<code id="${id}">([^<]*)</code>`).exec(html);
  if (!match) throw new Error(`no shown value ${id} in the page`);
  return match[1]!.replace(/&amp;/g, "&");
}

export const strongPassword = "correct horse battery staple";

/** Signs up through the pages, follows the mailed link, signs in: the browser holds the session. */
export async function signedUpDeveloper(test: TestApp, browser: SiteBrowser, email: string): Promise<void> {
  const form = await browser.get("/sign-up");
  const sent = await browser.post("/sign-up", { email, password: strongPassword }, form);
  assert.is(sent.status, 200, sent.html);
  const link = await mailedLink(test, email);
  assert.ok(link.startsWith(`${test.console}/verify-email?token=`), link);
  const verified = await browser.get(link.slice(test.console.length));
  assert.is(verified.status, 200, verified.html);
  const signInForm = await browser.get("/sign-in");
  const signedIn = await browser.post("/sign-in", { email, password: strongPassword }, signInForm);
  assert.is(signedIn.status, 303, signedIn.html);
}

/** Applies to the program through the page, has staff approve it (internal port), signs the agreement on the page. */
export async function admittedDeveloper(browser: SiteBrowser, staff: Client<typeof ConsoleService>): Promise<void> {
  const program = await browser.get("/program");
  assert.is(
    (
      await browser.post(
        "/program/apply",
        { companyName: "Acme Ltd", website: "https://acme.test", useCase: "stock sync" },
        program,
      )
    ).status,
    303,
  );
  const pending = await staff.listProgramApplications({});
  const mine = pending.applications.filter((application) => application.state === 1).at(-1)!;
  await staff.decideProgramApplication({ applicationId: mine.applicationId, approve: true });
  const signPage = await browser.get("/program");
  const version = hiddenValue(signPage.html, "version");
  assert.is((await browser.post("/program/sign", { version }, signPage)).status, 303);
}

/** An organization with an app and a sandbox merchant, made through the console's pages by a signed-in developer. */
export interface SandboxWorkspace {
  organizationId: number;
  appId: string;
  clientId: string;
  clientSecret: string;
  /** The sandbox merchant's company and its owner login, as the page showed them once. */
  companyId: number;
  owner: { email: string; password: string };
  /** The app's page right after creation (its credentials shown once). */
  appCreated: SitePage;
}

/** Makes the organization, the app and a sandbox merchant in `country` through the pages of a signed-in `browser`. */
export async function sandboxWorkspace(
  browser: SiteBrowser,
  names: { organization: string; app: string; product: string; merchant: string; country?: string },
): Promise<SandboxWorkspace> {
  const made = await browser.post("/organizations", { name: names.organization }, await browser.get("/"));
  assert.is(made.status, 303, made.html);
  const organizationId = Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
  const orgPage = await browser.get(`/organizations/${organizationId}`);
  const created = await browser.post(
    `/organizations/${organizationId}/apps`,
    { name: names.app, product: names.product, ...reviewLinks },
    orgPage,
  );
  assert.is(created.status, 200, created.html);
  const merchant = await browser.post(
    `/organizations/${organizationId}/sandbox-merchants`,
    { name: names.merchant, country: names.country ?? "GB" },
    orgPage,
  );
  assert.is(merchant.status, 200, merchant.html);
  return {
    organizationId,
    appId: /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!,
    // An ADSR app's creation shows no client pair (it calls with API keys): empty.
    clientId: names.product === "ADSR" ? "" : shownValue(created.html, "client-id"),
    clientSecret: names.product === "ADSR" ? "" : shownValue(created.html, "client-secret"),
    companyId: Number(/\(company (\d+)\) is ready/.exec(merchant.html)![1]),
    owner: { email: shownValue(merchant.html, "owner-email"), password: shownValue(merchant.html, "owner-password") },
    appCreated: created,
  };
}

/** A sandbox token of the workspace's app for its merchant (client_credentials with merchant_id). */
export async function sandboxToken(test: TestApp, workspace: SandboxWorkspace): Promise<string> {
  const answer = await fetch(`${test.base}/v1/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      grant_type: "client_credentials",
      client_id: workspace.clientId,
      client_secret: workspace.clientSecret,
      merchant_id: workspace.companyId,
    }),
  });
  const body = (await answer.json()) as { access_token: string };
  assert.is(answer.status, 200, JSON.stringify(body));
  return body.access_token;
}

/** A developer's organization with an ONLINE_ORDER app and a sandbox merchant, as the console pages made them. */
export interface SandboxOrdersSetup {
  organizationId: number;
  companyId: number;
  /** The merchant's page: `/organizations/{org}/sandbox-merchants/{company}`. */
  merchantPath: string;
  /** A sandbox token of the app for the merchant. */
  token: string;
  /** Places an order (a pickup of one catalogue item) through POST /v1/online-orders; answers its id. */
  place(customer: string, externalReference: string): Promise<number>;
}

/** Makes the organization, the ONLINE_ORDER app and a GB sandbox merchant through the pages of a signed-in `browser`. */
export async function sandboxOrdersSetup(
  test: TestApp,
  browser: SiteBrowser,
  name: string,
): Promise<SandboxOrdersSetup> {
  const workspace = await sandboxWorkspace(browser, {
    organization: name,
    app: "Web shop",
    product: "ONLINE_ORDER",
    merchant: "Corner cafe",
  });
  const { organizationId, companyId } = workspace;
  const token = await sandboxToken(test, workspace);
  const read = async (path: string, key: string) =>
    (
      (await (await fetch(`${test.base}${path}`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<
        string,
        Array<{ id: number }>
      >
    )[key]![0]!;
  const store = await read("/v1/stores?limit=1", "stores");
  const item = await read("/v1/items?limit=1", "items");
  return {
    organizationId,
    companyId,
    merchantPath: `/organizations/${organizationId}/sandbox-merchants/${companyId}`,
    token,
    async place(customer, externalReference) {
      const placed = await fetch(`${test.base}/v1/online-orders`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          storeId: store.id,
          lines: [{ itemId: item.id, quantity: 2 }],
          fulfilment: { type: "PICKUP" },
          customer: { name: customer },
          externalReference,
        }),
      });
      const body = (await placed.json()) as { order: { id: number } };
      assert.is(placed.status, 200, JSON.stringify(body));
      return body.order.id;
    },
  };
}
