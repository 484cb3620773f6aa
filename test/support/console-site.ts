// What the console site's suites share: a cookie-carrying HTTP client of CONSOLE_URL (redirects not followed, each
// browser from a source address of its own), the CSRF token of a page's forms, and the way to an admitted
// developer (signed up through the pages, verified by the mailed link, program approved by staff, agreement signed).
import * as assert from "uvu/assert";
import type { Client } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { mailedLink } from "./console.js";
import { randomAddress } from "./consent.js";
import { hiddenValue, type TestApp } from "./test-app.js";

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
