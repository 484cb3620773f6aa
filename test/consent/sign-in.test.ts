// The consent site's sign-in over plain HTTP: a signed-out merchant gets the sign-in form and comes back to the
// same consent request; the cookies' attributes (HttpOnly, SameSite=Lax, Secure when AUTH_URL is https); a wrong
// password and an unknown email answer alike; the sign-in rule (a hard limit per address and per account and address,
// the account slowed rather than locked, successes not counted) and the end of its window on the manual clock (IPv6 sources by their /64); CSRF token and Origin checks on the POST.
import { randomBytes } from "node:crypto";
import { advancing } from "../support/advancing.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { maxSignInDelayMs } from "../../src/consent/consent-server.js";
import { hiddenValue, startTestApp, type TestApp, type World } from "../support/test-app.js";
import {
  assertErrorPage,
  assertNotFramable,
  createBrowser,
  newSandboxWorld,
  randomAddress,
  type Page,
} from "../support/consent.js";

const SignIn = suite("consent/sign-in");
const clock = createManualClock(Date.now());
const minute = 60_000;
/** The sign-in window of the consent site (fixed, 15 minutes). */
const windowMs = 15 * minute;
/** Attempts per email per window; ten times as many per address. */
const limit = 2;

let test: TestApp;
let secure: TestApp;
let worlds = 0;

SignIn.before(async () => {
  test = await startTestApp({
    clock,
    redis: true,
    env: { TRUST_PROXY: "127.0.0.1", CONSENT_SIGN_IN_LIMIT: String(limit) },
  });
});
SignIn.after(async () => {
  await test.stop();
  await secure?.stop();
});

/** Each test has its own world, so the per-email counters of one never reach another. */
const fresh = () => newSandboxWorld(test, clock, `http://127.0.0.1:9/signed-in/${++worlds}`);

const authorizeUrl = (app: TestApp, world: World, state = "st-1") =>
  `${app.auth}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: world.clientId, redirect_uri: world.redirectUri, state, scope: "items.read" })}`;

/** The Set-Cookie line of `name` in a response. */
function cookieLine(page: Page, name: string): string {
  const line = page.setCookie.find((candidate) => candidate.startsWith(`${name}=`));
  if (!line) throw new Error(`no Set-Cookie ${name} in ${JSON.stringify(page.setCookie)}`);
  return line;
}

/** The attributes of a Set-Cookie line, lower-cased names. */
function attributes(line: string): Map<string, string> {
  return new Map(
    line
      .split(";")
      .slice(1)
      .map((part) => {
        const [name, value = ""] = part.trim().split("=");
        return [name!.toLowerCase(), value];
      }),
  );
}

/**
 * Puts the clock one second into the sign-in window after both its own time and the real one: a Redis window is
 * created to expire at its end by this clock, so a window in the real past would vanish at once.
 */
function startOfWindow(): void {
  clock.set((Math.floor(Math.max(clock.now(), Date.now()) / windowMs) + 1) * windowMs + 1000);
}

SignIn("signed out: the sign-in form; after signing in, 303 back to the very same consent request", async () => {
  const world = await fresh();
  const browser = createBrowser(test);
  const target = authorizeUrl(test, world, "st-same");
  const form = await browser.get(target);
  assert.is(form.status, 200);
  assertNotFramable(form);
  assert.match(form.html, `App `);
  assert.match(form.html, "wants to connect to your business. Sign in to continue.");
  assert.match(form.html, '<label for="email">Email</label> <input id="email" name="email"');
  assert.match(
    form.html,
    '<label for="password">Password</label> <input id="password" name="password" type="password"',
  );
  assert.match(form.html, '<button type="submit">Sign in</button>');
  const requested = new URL(target);
  assert.is(hiddenValue(form.html, "return_to"), requested.pathname + requested.search);
  assert.ok(browser.cookies.has("lp_consent_csrf"), "the pre-sign-in CSRF cookie");
  assert.is(hiddenValue(form.html, "csrf"), browser.cookies.get("lp_consent_csrf"));

  const signedIn = await browser.signIn(form, world.owner);
  assert.is(signedIn.status, 303);
  assert.is(signedIn.headers.get("location"), requested.pathname + requested.search);
  assertNotFramable(signedIn);
  assert.match(browser.cookies.get("lp_consent_session") ?? "", /^[A-Za-z0-9_-]{43}$/);
  assert.not.ok(browser.cookies.has("lp_consent_csrf"), "the pre-sign-in token is dropped");

  const consent = await browser.get(signedIn.headers.get("location")!);
  assert.is(consent.status, 200);
  assert.match(consent.html, "Connect an app");
  // The company by its name, never its number (a merchant knows the one, not the other).
  assert.match(consent.html, /wants to connect to <strong class="name"><bdi>[^<]+<\/bdi><\/strong>\.<\/p>/);
  assert.not.match(consent.html, `company ${world.companyId}`);
  assert.match(consent.html, `Signed in as <bdi>${world.owner.email}</bdi>`);
  assert.is(hiddenValue(consent.html, "state"), "st-same");
  assertNotFramable(consent);
});

SignIn("a failed attempt keeps the consent request: the next, right one still returns to it", async () => {
  const world = await fresh();
  const browser = createBrowser(test);
  const target = new URL(authorizeUrl(test, world, "st-retry"));
  const failed = await browser.signIn(await browser.get(target.href), {
    email: world.owner.email,
    password: "wrong password",
  });
  assert.is(failed.status, 401);
  assert.is(hiddenValue(failed.html, "return_to"), target.pathname + target.search);
  // What was typed (the email, never the password) and the app's context stay; the error is focused.
  assert.match(failed.html, `dir="ltr" required value="${world.owner.email}" aria-describedby="sign-in-error"></p>`);
  assert.match(
    failed.html,
    /<p class="lead"><strong class="name"><bdi>App \d+<\/bdi><\/strong> wants to connect to your business\. Sign in to continue\.<\/p>/,
  );
  assert.match(
    failed.html,
    '<div class="alert error" id="sign-in-error" tabindex="-1" autofocus><p role="alert">The email or password is not correct.</p></div>',
  );
  assert.match(
    failed.html,
    `<a class="button secondary" href="/oauth/authorize/cancel${target.search.replaceAll("&", "&amp;")}">Cancel</a>`,
  );
  assert.not.match(failed.html, "wrong password");
  const signedIn = await browser.signIn(failed, world.owner);
  assert.is(signedIn.status, 303);
  assert.is(signedIn.headers.get("location"), target.pathname + target.search);
});

SignIn(
  "Cancel on the sign-in page returns access_denied with the state to the app; a tampered request is shown, never followed",
  async () => {
    const world = await fresh();
    const browser = createBrowser(test);
    const target = new URL(authorizeUrl(test, world, "st-cancel"));
    const form = await browser.get(target.href);
    const href = /<a class="button secondary" href="([^"]+)">Cancel<\/a>/
      .exec(form.html)?.[1]
      ?.replaceAll("&amp;", "&");
    assert.is(href, `/oauth/authorize/cancel${target.search}`);
    const cancelled = await browser.get(`${test.auth}${href}`);
    assert.is(cancelled.status, 302);
    const back = new URL(cancelled.headers.get("location")!);
    assert.is(`${back.origin}${back.pathname}`, world.redirectUri);
    assert.is(back.searchParams.get("error"), "access_denied");
    assert.is(back.searchParams.get("state"), "st-cancel");
    assert.is(back.searchParams.get("code"), null);
    // Another redirect URI than the registered one: the error page, no redirect anywhere.
    const tampered = new URL(`${test.auth}${href}`);
    tampered.searchParams.set("redirect_uri", "https://evil.example/callback");
    const refused = await browser.get(tampered.href);
    assert.is(refused.status, 400);
    assert.is(refused.headers.get("location"), null);
    assert.match(refused.html, "<code>oauth.redirect_uri_mismatch</code>");
    assert.match(refused.html, "The app sent a connection request that cannot be used.");
  },
);

SignIn("cookies over http: no prefix, HttpOnly, SameSite=Lax, Path=/, no Secure; no HSTS", async () => {
  const world = await fresh();
  const browser = createBrowser(test);
  const form = await browser.get(authorizeUrl(test, world));
  const csrf = attributes(cookieLine(form, "lp_consent_csrf"));
  const signedIn = await browser.signIn(form, world.owner);
  const session = attributes(cookieLine(signedIn, "lp_consent_session"));
  for (const cookie of [csrf, session]) {
    assert.ok(cookie.has("httponly"));
    assert.is(cookie.get("samesite"), "Lax");
    assert.is(cookie.get("path"), "/");
    assert.not.ok(cookie.has("secure"));
  }
  assert.is(session.get("max-age"), "3600");
  assert.is(attributes(cookieLine(signedIn, "lp_consent_csrf")).get("max-age"), "0");
  assert.equal(form.setCookie, [
    `lp_consent_csrf=${hiddenValue(form.html, "csrf")}; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600`,
  ]);
  for (const page of [form, signedIn]) assert.is(page.headers.get("strict-transport-security"), null);
});

SignIn(
  "AUTH_URL https (the listener itself stays http): __Host- cookies, Secure, HSTS on every page; the POST must come from that origin",
  async () => {
    const origin = "https://consent.example.test";
    secure = await startTestApp({ clock, redis: true, env: { TRUST_PROXY: "127.0.0.1", AUTH_URL: origin } });
    assert.is(secure.config.urls.auth, origin);
    const w = await newSandboxWorld(secure, clock, "https://app.example.test/callback");
    const browser = createBrowser(secure);
    const target = `${secure.auth}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: w.clientId, redirect_uri: w.redirectUri, state: "s" })}`;
    const form = await browser.get(target);
    assert.is(form.status, 200);
    assert.is(form.headers.get("strict-transport-security"), "max-age=31536000");
    const token = hiddenValue(form.html, "csrf");
    assert.equal(form.setCookie, [
      `__Host-lp_consent_csrf=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600; Secure`,
    ]);
    // The listener's own http origin is not the site's origin.
    const refused = await browser.post(
      "/oauth/sign-in",
      { csrf: token, return_to: hiddenValue(form.html, "return_to"), ...w.owner },
      { origin: secure.auth },
    );
    assert.is(refused.status, 403);
    assert.is(refused.headers.get("strict-transport-security"), "max-age=31536000");
    const signedIn = await browser.signIn(form, w.owner); // Origin: AUTH_URL
    assert.is(signedIn.status, 303, signedIn.html);
    assert.is(signedIn.headers.get("strict-transport-security"), "max-age=31536000");
    const session = browser.cookies.get("__Host-lp_consent_session")!;
    assert.match(session, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(signedIn.setCookie, [
      `__Host-lp_consent_session=${session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600; Secure`,
      "__Host-lp_consent_csrf=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure",
    ]);
    // The session is read from the __Host- cookie: the consent screen, not the sign-in form.
    const consent = await browser.get(target);
    assert.is(consent.status, 200);
    assert.match(consent.html, "Connect an app");
    // A cookie without the prefix is not the session (a sibling host could have set it).
    const unprefixed = createBrowser(secure, browser.address);
    unprefixed.cookies.set("lp_consent_session", session);
    assert.match((await unprefixed.get(target)).html, "Sign in to continue.");
    for (const path of ["/nowhere", "/healthz", "/oauth/connections"]) {
      assert.is((await browser.get(path)).headers.get("strict-transport-security"), "max-age=31536000", path);
    }
  },
);

SignIn("AUTH_URL with an upper-case HTTPS scheme is https all the same: Secure cookies", async () => {
  const upper = await startTestApp({
    clock,
    redis: true,
    env: { TRUST_PROXY: "127.0.0.1", AUTH_URL: "HTTPS://Consent.Example.Test" },
  });
  try {
    const w = await newSandboxWorld(upper, clock, "https://app.example.test/upper");
    const browser = createBrowser(upper);
    const form = await browser.get(
      `${upper.auth}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: w.clientId, redirect_uri: w.redirectUri, state: "s" })}`,
    );
    assert.ok(attributes(cookieLine(form, "__Host-lp_consent_csrf")).has("secure"));
    // Browsers send the serialized origin: lower case.
    const fields = { csrf: hiddenValue(form.html, "csrf"), return_to: hiddenValue(form.html, "return_to"), ...w.owner };
    const signedIn = await browser.post("/oauth/sign-in", fields, { origin: "https://consent.example.test" });
    assert.is(signedIn.status, 303, signedIn.html);
    assert.ok(attributes(cookieLine(signedIn, "__Host-lp_consent_session")).has("secure"));
  } finally {
    await upper.stop();
  }
});

SignIn("a wrong password and an unknown email get the same 401 page, no session, no hint which", async () => {
  const world = await fresh();
  const browser = createBrowser(test);
  const form = await browser.get(authorizeUrl(test, world));
  const answers = [
    await browser.signIn(form, { email: world.owner.email, password: "not the password" }),
    await browser.signIn(form, { email: `nobody.${Date.now()}@shop.test`, password: "not the password" }),
    await browser.signIn(form, { email: world.employee.email, password: world.owner.password }),
  ];
  // Each page gives back the email as typed (issue 28: a failed sign-in keeps it) and nothing else that differs.
  const typed = [world.owner.email, "", world.employee.email];
  const withoutTypedEmail = (answer: Page) => answer.html.replace(/ value="[^"]*@[^"]*"/, ' value="(typed)"');
  for (const [index, answer] of answers.entries()) {
    assert.is(answer.status, 401);
    assert.is(answer.headers.get("location"), null);
    assert.match(answer.html, '<p role="alert">The email or password is not correct.</p>');
    if (typed[index]) assert.match(answer.html, `value="${typed[index]}"`);
    assert.not.match(withoutTypedEmail(answer), "@");
    assert.equal(
      answer.setCookie.filter((line) => line.startsWith("lp_consent_session=")),
      [],
    );
    assertNotFramable(answer);
  }
  assert.is(
    withoutTypedEmail(answers[1]!),
    withoutTypedEmail(answers[0]!),
    "unknown email and wrong password: identical pages",
  );
  assert.is(withoutTypedEmail(answers[2]!), withoutTypedEmail(answers[0]!));
  assert.not.ok(browser.cookies.has("lp_consent_session"));
});

/** One sign-in attempt from `address`, in a fresh browser (form fetched first, which counts nothing). */
async function attempt(world: World, user: { email: string; password: string }, address: string): Promise<Page> {
  const browser = createBrowser(test, address);
  return browser.signIn(await browser.get(authorizeUrl(test, world)), user);
}

SignIn(
  "failures of one account from one address: that pair gets 429 until its window ends; from elsewhere the owner is slowed, never locked",
  async () => {
    const world = await fresh();
    const address = randomAddress();
    startOfWindow();
    for (let i = 0; i < limit; i++)
      assert.is((await attempt(world, { email: world.employee.email, password: "guess " + i }, address)).status, 401);
    const refused = await attempt(world, world.employee, address);
    assertErrorPage(refused, 429, "developer.too_many_attempts");
    assert.is(refused.headers.get("retry-after"), "900");
    assert.equal(
      refused.setCookie.filter((line) => line.startsWith("lp_consent_session=")),
      [],
    );
    // The same email, differently spelled, is the same pair.
    const respelled = { email: `  ${world.employee.email.toUpperCase()} `, password: world.employee.password };
    assertErrorPage(await attempt(world, respelled, address), 429, "developer.too_many_attempts");
    // Another account from this address is not affected.
    assert.is((await attempt(world, world.owner, address)).status, 303);
    // From another address the account signs in: slowed (the clock must move a second first), not refused.
    const elsewhere = await advancing(clock, attempt(world, world.employee, randomAddress()));
    assert.is(elsewhere.value.status, 303, elsewhere.value.html);
    assert.ok(elsewhere.movedMs >= 1000, "waited for the delay");
    assert.ok(test.logs.some((line) => line.includes('"consent sign-in slowed"') && line.includes('"ms":1000')));
    clock.set((Math.floor(clock.now() / windowMs) + 1) * windowMs + 1000); // the next window
    const admitted = await attempt(world, respelled, address);
    assert.is(admitted.status, 303, admitted.html);
  },
);

SignIn(
  "a stranger's failures from many addresses slow the account with growing delays, capped; successful sign-ins count for nothing",
  async () => {
    const world = await fresh();
    startOfWindow();
    // Successful sign-ins, more than the ceiling, from one address: none is slowed or refused.
    const own = randomAddress();
    for (let i = 0; i < limit + 3; i++) assert.is((await attempt(world, world.owner, own)).status, 303);
    // limit + 2 failures, each from a new address: past the ceiling each waits longer (1 s, then 2 s).
    for (let i = 0; i < limit; i++)
      assert.is(
        (await attempt(world, { email: world.owner.email, password: "guess " + i }, randomAddress())).status,
        401,
      );
    const first = await advancing(
      clock,
      attempt(world, { email: world.owner.email, password: "guess again" }, randomAddress()),
    );
    assert.is(first.value.status, 401);
    const second = await advancing(
      clock,
      attempt(world, { email: world.owner.email, password: "and again" }, randomAddress()),
    );
    assert.is(second.value.status, 401);
    assert.ok(second.movedMs >= 2000, `the second delay is longer (${second.movedMs} ms)`);
    // The owner, from their own address, still signs in, after the delay.
    const owner = await advancing(clock, attempt(world, world.owner, own));
    assert.is(owner.value.status, 303, owner.value.html);
    assert.ok(owner.movedMs >= 4000, `slowed by the third doubling (${owner.movedMs} ms)`);
    assert.ok(test.logs.some((line) => line.includes('"consent sign-in slowed"') && line.includes('"ms":4000')));
    assert.is(maxSignInDelayMs, 30_000);
  },
);

SignIn(
  "throttle per address: ten times the per-email ceiling, over any emails; another address is not affected",
  async () => {
    const world = await fresh();
    const address = randomAddress();
    startOfWindow();
    for (let i = 0; i < limit * 10; i++) {
      assert.is(
        (await attempt(world, { email: `stranger.${i}.${process.pid}@shop.test`, password: "x" }, address)).status,
        401,
      );
    }
    assertErrorPage(await attempt(world, world.owner, address), 429, "developer.too_many_attempts");
    assert.is((await attempt(world, world.owner, randomAddress())).status, 303);
    clock.advance(windowMs - 1000);
    assert.is((await attempt(world, world.owner, address)).status, 303);
  },
);

SignIn(
  "throttle per address: an IPv6 source counts by its /64, so fresh addresses of one subnet share the ceiling",
  async () => {
    const world = await fresh();
    const subnet = `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;
    startOfWindow();
    for (let i = 0; i < limit * 10; i++) {
      assert.is(
        (
          await attempt(
            world,
            { email: `stranger.${i}.${process.pid}@shop.test`, password: "x" },
            `${subnet}::${(i + 1).toString(16)}`,
          )
        ).status,
        401,
      );
    }
    assertErrorPage(
      await attempt(world, world.owner, `${subnet}:ffff:ffff:ffff:ffff`),
      429,
      "developer.too_many_attempts",
    );
    assert.is(
      (await attempt(world, world.owner, `2001:db8:${randomBytes(2).toString("hex")}:ffff::1`)).status,
      303,
      "another /64",
    );
  },
);

SignIn("the sign-in POST needs the CSRF token of its cookie, and no foreign Origin", async () => {
  const world = await fresh();
  const browser = createBrowser(test);
  const form = await browser.get(authorizeUrl(test, world));
  const token = hiddenValue(form.html, "csrf");
  const fields = { return_to: hiddenValue(form.html, "return_to"), ...world.owner };
  const refusals: [string, Page][] = [
    ["no token", await browser.post("/oauth/sign-in", fields)],
    ["an empty token", await browser.post("/oauth/sign-in", { ...fields, csrf: "" })],
    ["another token", await browser.post("/oauth/sign-in", { ...fields, csrf: "A".repeat(43) })],
    [
      "another site",
      await browser.post("/oauth/sign-in", { ...fields, csrf: token }, { origin: "https://evil.example" }),
    ],
    ["an opaque origin", await browser.post("/oauth/sign-in", { ...fields, csrf: token }, { origin: "null" })],
  ];
  const cookieless = createBrowser(test);
  refusals.push(["a token without its cookie", await cookieless.post("/oauth/sign-in", { ...fields, csrf: token })]);
  for (const [name, page] of refusals) {
    assert.is(page.status, 403, name);
    assert.is(page.headers.get("location"), null, name);
    assert.equal(
      page.setCookie.filter((line) => line.startsWith("lp_consent_session=")),
      [],
      name,
    );
    assertNotFramable(page);
  }
  assert.match(refusals[0]![1].html, "The form expired. Go back and try again.");
  assert.match(refusals[3]![1].html, "This form was sent from another site.");
  // Not a form at all.
  const json = await fetch(`${test.auth}/oauth/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: test.config.urls.auth },
    body: "{}",
  });
  assert.is(json.status, 400);
  // Without an Origin header (older browsers), the token alone decides.
  assert.is((await browser.post("/oauth/sign-in", { ...fields, csrf: token }, { origin: null })).status, 303);
});

SignIn(
  "Sec-Fetch-Site beside Origin: cross-site and same-site POSTs are refused like a foreign Origin; same-origin, none and absent pass",
  async () => {
    const world = await fresh();
    const browser = createBrowser(test);
    const form = await browser.get(authorizeUrl(test, world));
    const fields = {
      csrf: hiddenValue(form.html, "csrf"),
      return_to: hiddenValue(form.html, "return_to"),
      ...world.owner,
    };
    for (const site of ["cross-site", "same-site", "CROSS-SITE"]) {
      // With our own Origin, and without any (a browser that sends Sec-Fetch-Site always sends Origin on a POST).
      for (const origin of [undefined, null]) {
        const refused = await browser.post("/oauth/sign-in", fields, { origin, headers: { "sec-fetch-site": site } });
        assert.is(refused.status, 403, site);
        assert.match(refused.html, "This form was sent from another site.");
        assert.equal(refused.setCookie, [], site);
        assertNotFramable(refused);
      }
    }
    // Two accepted sign-ins per email at most (the suite's ceiling): one as the owner, one as the employee.
    for (const [site, user] of [
      ["same-origin", world.owner],
      ["none", world.employee],
    ] as const) {
      const other = createBrowser(test, browser.address);
      const page = await other.get(authorizeUrl(test, world));
      const accepted = await other.post(
        "/oauth/sign-in",
        { csrf: hiddenValue(page.html, "csrf"), return_to: hiddenValue(page.html, "return_to"), ...user },
        { headers: { "sec-fetch-site": site } },
      );
      assert.is(accepted.status, 303, site);
      const out = await other.post(
        "/oauth/sign-out",
        { csrf: hiddenValue((await other.get("/oauth/connections")).html, "csrf") },
        { headers: { "sec-fetch-site": site } },
      );
      assert.is(out.status, 200, site);
    }
    // Absent (older browsers): the Origin and the token decide, as before.
    assert.is((await browser.post("/oauth/sign-in", fields)).status, 303);
  },
);

SignIn("after signing in, the return path stays on this site; signed-in POSTs need the session's token", async () => {
  const world = await fresh();
  const browser = createBrowser(test);
  const form = await browser.get(authorizeUrl(test, world));
  const away = await browser.post("/oauth/sign-in", {
    csrf: hiddenValue(form.html, "csrf"),
    return_to: "https://evil.example/oauth/authorize?x",
    ...world.owner,
  });
  assert.is(away.status, 303);
  assert.is(away.headers.get("location"), "/oauth/connections");
  // A return path that cannot be a header value (CR/LF, a character above U+00FF) is not followed, and the site
  // stays up (writing it as Location used to throw outside the route's catch and end the process).
  for (const returnTo of ["/oauth/authorize?a\r\nSet-Cookie: x=y", "/oauth/authorize?state=\u20ac"]) {
    const other = createBrowser(test, browser.address);
    const form = await other.get(authorizeUrl(test, world));
    const answer = await other.post("/oauth/sign-in", {
      csrf: hiddenValue(form.html, "csrf"),
      return_to: returnTo,
      ...world.employee,
    });
    assert.is(answer.status, 303);
    assert.is(answer.headers.get("location"), "/oauth/connections");
  }
  assert.is((await fetch(`${test.auth}/healthz`)).status, 200);
  assert.is((await browser.post("/oauth/sign-out", {})).status, 403);
  assert.is((await browser.post("/oauth/sign-out", { csrf: "B".repeat(43) })).status, 403);
  const page = await browser.get("/oauth/connections");
  const out = await browser.post("/oauth/sign-out", { csrf: hiddenValue(page.html, "csrf") });
  assert.is(out.status, 200);
  assert.not.ok(browser.cookies.has("lp_consent_session"));
  assert.match((await browser.get(authorizeUrl(test, world))).html, "Sign in to continue.");
});

SignIn(
  "every answer names its correlation id, reused from a well-formed X-Request-Id, and the request line logs it",
  async () => {
    const requestId = "0af7651916cd43dd8448eb211c80319c";
    const given = await fetch(`${test.auth}/oauth/connections`, {
      headers: { "X-Request-Id": requestId },
      redirect: "manual",
    });
    assert.is(given.headers.get("x-correlation-id"), "0af76519-16cd-43dd-8448-eb211c80319c");
    const line = test.logs
      .map((entry) => JSON.parse(entry) as Record<string, unknown>)
      .find(
        (entry) =>
          entry["msg"] === "consent request" && entry["correlationId"] === "0af76519-16cd-43dd-8448-eb211c80319c",
      );
    assert.equal(
      [line?.["path"], line?.["status"], typeof line?.["ms"]],
      ["/oauth/connections", given.status, "number"],
    );
    const probe = await fetch(`${test.auth}/healthz`, { headers: { "X-Request-Id": "not an id" } });
    assert.is(probe.status, 200);
    assert.match(
      probe.headers.get("x-correlation-id") ?? "",
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    assert.is.not(probe.headers.get("x-correlation-id"), "not an id");
    assert.is(probe.headers.get("content-type"), "text/plain; charset=utf-8");
  },
);

SignIn.run();
