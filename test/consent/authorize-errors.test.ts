// GET /oauth/authorize over plain HTTP: every failure of the spec's checks is rendered on a page with its code and
// status, never redirected (no Location), in the spec's order (client_id, redirect_uri, state, response_type, PKCE
// method, production publication, environment eligibility) so that with several wrong at once the first is shown;
// `scope` is accepted and ignored; every page refuses to be framed.
import { createHash } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { messageFor } from "../../src/errors/index.js";
import { credentialServiceOf, startTestApp, type TestApp, type World } from "../support/test-app.js";
import {
  assertErrorPage,
  assertNotFramable,
  authorizeWith,
  createBrowser,
  newProductionWorld,
  newSandboxWorld,
  type Browser,
  type ProductionWorld,
} from "../support/consent.js";

const Authorize = suite("consent/authorize-errors");
const clock = createManualClock(Date.now());
const verifier = "a".repeat(43);
const challenge = createHash("sha256").update(verifier).digest("base64url");

let test: TestApp;
let sandbox: World;
let otherSandbox: World;
let production: ProductionWorld;

Authorize.before(async () => {
  test = await startTestApp({ clock, redis: true, env: { TRUST_PROXY: "127.0.0.1" } });
  sandbox = await newSandboxWorld(test, clock, "http://127.0.0.1:9/callback?x=1");
  otherSandbox = await newSandboxWorld(test, clock, "http://localhost:9/other");
  production = await newProductionWorld(test, clock, "https://app.example.test/callback");
});
Authorize.after(async () => {
  await test.stop();
});

/** A valid request of `world`, with `change` applied (undefined removes a parameter). */
function url(
  world: { clientId: string; redirectUri: string },
  change: Record<string, string | undefined> = {},
): string {
  return authorizeWith(test, {
    response_type: "code",
    client_id: world.clientId,
    redirect_uri: world.redirectUri,
    state: "st-1",
    ...change,
  });
}

/** A browser signed in as `user` (through the sign-in form of a valid request of `world`). */
async function signedIn(
  world: { clientId: string; redirectUri: string },
  user: { email: string; password: string },
): Promise<Browser> {
  const browser = createBrowser(test);
  const page = await browser.get(url(world));
  const answer = await browser.signIn(page, user);
  assert.is(answer.status, 303, answer.html);
  return browser;
}

Authorize("a valid request of a signed-out merchant: the sign-in page (200), not framable", async () => {
  const page = await createBrowser(test).get(
    url(sandbox, { code_challenge: challenge, code_challenge_method: "S256" }),
  );
  assert.is(page.status, 200);
  assert.is(page.headers.get("location"), null);
  assert.match(page.html, '<button type="submit">Sign in</button>');
  assertNotFramable(page);
});

Authorize(
  "oauth.client_not_found (400): unknown, unprefixed, missing, of the other environment's prefix, repeated",
  async () => {
    const browser = createBrowser(test);
    const unknown = "lp_app_sb" + "Z".repeat(24);
    const wrongPrefix = sandbox.clientId.replace(/^lp_app_sb/, "lp_app_pk");
    for (const clientId of [unknown, "someone-else", "", undefined, wrongPrefix]) {
      assertErrorPage(await browser.get(url(sandbox, { client_id: clientId })), 400, "oauth.client_not_found");
    }
    const repeated = url(sandbox) + "&client_id=" + encodeURIComponent(sandbox.clientId);
    assertErrorPage(await browser.get(repeated), 400, "oauth.client_not_found");
  },
);

Authorize(
  "oauth.redirect_uri_mismatch (400): unregistered, and near misses (slash, port, query, case), missing, repeated",
  async () => {
    const browser = createBrowser(test);
    const registered = sandbox.redirectUri; // http://127.0.0.1:9/callback?x=1
    const nearMisses = [
      "https://app.example.test/callback",
      "http://127.0.0.1:9/callback/?x=1",
      "http://127.0.0.1:9/callback?x=1/",
      "http://127.0.0.1:10/callback?x=1",
      "http://127.0.0.1/callback?x=1",
      "http://127.0.0.1:9/callback?x=2",
      "http://127.0.0.1:9/callback?x=1&y=2",
      "http://127.0.0.1:9/callback",
      "http://localhost:9/callback?x=1",
      "http://127.0.0.1:9/Callback?x=1",
      "http://127.0.0.1:9/callback?x=1#frag",
      otherSandbox.redirectUri, // another app's registered URI
      "",
      undefined,
    ];
    for (const redirectUri of nearMisses) {
      assertErrorPage(
        await browser.get(url(sandbox, { redirect_uri: redirectUri })),
        400,
        "oauth.redirect_uri_mismatch",
      );
    }
    assertErrorPage(
      await browser.get(url(sandbox) + "&redirect_uri=" + encodeURIComponent(registered)),
      400,
      "oauth.redirect_uri_mismatch",
    );
    assert.is((await browser.get(url(sandbox))).status, 200, "the exact registered URI passes");
  },
);

Authorize("oauth.state_required (400): missing, empty, repeated", async () => {
  const browser = createBrowser(test);
  assertErrorPage(await browser.get(url(sandbox, { state: undefined })), 400, "oauth.state_required");
  assertErrorPage(await browser.get(url(sandbox, { state: "" })), 400, "oauth.state_required");
  assertErrorPage(await browser.get(url(sandbox) + "&state=st-2"), 400, "oauth.state_required");
});

Authorize("response_type other than code: oauth.invalid_request (400) naming response_type, on a page", async () => {
  const browser = createBrowser(test);
  for (const responseType of [undefined, "", "token", "Code", "code id_token"]) {
    const page = await browser.get(url(sandbox, { response_type: responseType }));
    assertErrorPage(page, 400, "oauth.invalid_request");
    assert.match(page.html, "response_type");
  }
});

Authorize(
  "response_mode other than query: oauth.unsupported_response_mode (400) on a page, never redirected; query is accepted",
  async () => {
    const browser = createBrowser(test);
    for (const mode of ["fragment", "form_post", "", "Query", "query.jwt"]) {
      const page = await browser.get(url(sandbox, { response_mode: mode }));
      assertErrorPage(page, 400, "oauth.unsupported_response_mode");
      assert.match(page.html, messageFor("oauth.unsupported_response_mode", {}));
    }
    assertErrorPage(
      await browser.get(url(sandbox, { response_mode: "query" }) + "&response_mode=query"),
      400,
      "oauth.invalid_request",
    );
    const accepted = await browser.get(url(sandbox, { response_mode: "query" }));
    assert.is(accepted.status, 200, accepted.html.slice(0, 300));
  },
);

Authorize("oauth.pkce_method_unsupported (400): plain, any other method, a challenge without its method", async () => {
  const browser = createBrowser(test);
  for (const method of ["plain", "s256", "S512", "", "S256 "]) {
    assertErrorPage(
      await browser.get(url(sandbox, { code_challenge: challenge, code_challenge_method: method })),
      400,
      "oauth.pkce_method_unsupported",
    );
  }
  assertErrorPage(
    await browser.get(url(sandbox, { code_challenge_method: "plain" })),
    400,
    "oauth.pkce_method_unsupported",
  );
  // Spec: code_challenge "Requires code_challenge_method".
  assertErrorPage(await browser.get(url(sandbox, { code_challenge: challenge })), 400, "oauth.pkce_method_unsupported");
  // S256 without a challenge, or with one that is not a SHA-256 digest in base64url: malformed.
  for (const bad of [undefined, "short", challenge + "=", challenge.slice(0, 42) + "+"]) {
    const page = await browser.get(url(sandbox, { code_challenge: bad, code_challenge_method: "S256" }));
    assertErrorPage(page, 400, "oauth.invalid_request");
    assert.match(page.html, "code_challenge");
  }
  assert.is(
    (await browser.get(url(sandbox, { code_challenge: challenge, code_challenge_method: "S256" }))).status,
    200,
  );
});

Authorize("oauth.app_not_published (403): a production client of an app that is not APPROVED", async () => {
  const live = await newProductionWorld(test, clock, "https://app.example.test/unpublished");
  const browser = createBrowser(test);
  assert.is((await browser.get(url(live))).status, 200, "approved: the sign-in page");
  // The only way an app leaves APPROVED through the API: archived, its production client stays on record.
  await credentialServiceOf(test, clock).archiveApp({ appId: live.appId });
  assertErrorPage(await browser.get(url(live)), 403, "oauth.app_not_published");
  // Any other state than APPROVED (set in storage: review states are not reachable again through the API).
  for (const state of ["IN_REVIEW", "REJECTED", "DRAFT"]) {
    await test.app.control.sql`update control.apps set state = ${state} where id = ${live.appId}`;
    assertErrorPage(await browser.get(url(live)), 403, "oauth.app_not_published");
  }
  // A signed-in owner of an eligible live company sees the same: publication is checked before eligibility.
  await test.app.control.sql`update control.apps set state = 'APPROVED' where id = ${live.appId}`;
  const owner = await signedIn(live, live.owner);
  assert.is((await owner.get(url(live))).status, 200);
  await test.app.control.sql`update control.apps set state = 'IN_REVIEW' where id = ${live.appId}`;
  assertErrorPage(await owner.get(url(live)), 403, "oauth.app_not_published");
});

Authorize(
  "oauth.company_not_eligible (403): production client with a demo company; sandbox client with another company",
  async () => {
    // Production client, live company: the consent screen (the world is right, only the environment matters below).
    const liveOwner = await signedIn(production, production.owner);
    const consent = await liveOwner.get(url(production));
    assert.is(consent.status, 200, consent.html);
    assert.match(consent.html, "Connect an app");
    assertNotFramable(consent);
    // Production client, demo (sandbox) company.
    const sandboxOwner = await signedIn(sandbox, sandbox.owner);
    assertErrorPage(await sandboxOwner.get(url(production)), 403, "oauth.company_not_eligible");
    // Sandbox client, live company.
    assertErrorPage(await liveOwner.get(url(sandbox)), 403, "oauth.company_not_eligible");
    // Sandbox client, a sandbox company of another organization.
    const otherOwner = await signedIn(otherSandbox, otherSandbox.owner);
    const otherOrganization = await otherOwner.get(url(sandbox));
    assertErrorPage(otherOrganization, 403, "oauth.company_not_eligible");
    // The message names the rule that refused it (its own organization's sandbox merchants), not only the environment.
    assert.match(
      otherOrganization.html,
      "a sandbox app connects only the active sandbox merchants of its own organization, and a production app only active live companies.",
    );
    // The employees of those companies see the same page.
    const employee = await signedIn(sandbox, otherSandbox.employee);
    assertErrorPage(await employee.get(url(sandbox)), 403, "oauth.company_not_eligible");
    // The decision POST checks again: a forged Allow for an ineligible company is refused, with no redirect.
    const forged = await otherOwner.post("/oauth/authorize/decision", {
      csrf: csrfOf((await otherOwner.get(url(otherSandbox))).html),
      response_type: "code",
      client_id: sandbox.clientId,
      redirect_uri: sandbox.redirectUri,
      state: "st-1",
      decision: "allow",
    });
    assertErrorPage(forged, 403, "oauth.company_not_eligible");
  },
);

/** The session's CSRF token from a consent page's decision form. */
function csrfOf(html: string): string {
  const match = /<input type="hidden" name="csrf" value="([^"]*)">/.exec(html);
  if (!match) throw new Error("no csrf in the page");
  return match[1]!;
}

Authorize(
  "the code's further refusals: a revoked client id is unknown; a sandbox client of an archived app; an ADSR app",
  async () => {
    const credentials = credentialServiceOf(test, clock);
    const browser = createBrowser(test);
    const revoked = await newSandboxWorld(test, clock, "http://127.0.0.1:9/revoked");
    await credentials.revokeClientCredential({ clientId: revoked.clientId });
    assertErrorPage(await browser.get(url(revoked)), 400, "oauth.client_not_found");
    const archived = await newSandboxWorld(test, clock, "http://127.0.0.1:9/archived");
    await credentials.archiveApp({ appId: archived.appId });
    assertErrorPage(await browser.get(url(archived)), 403, "developer.app_archived");
    const adsr = await newSandboxWorld(test, clock, "http://127.0.0.1:9/adsr", Product.ADSR);
    assertErrorPage(await browser.get(url(adsr)), 400, "developer.use_api_key");
  },
);

Authorize("several wrong at once: the first in the spec's order is the one shown", async () => {
  const archived = await newProductionWorld(test, clock, "https://app.example.test/archived");
  await credentialServiceOf(test, clock).archiveApp({ appId: archived.appId });
  const everythingWrong = {
    redirect_uri: "https://evil.example/cb",
    state: undefined,
    response_type: "token",
    code_challenge: challenge,
    code_challenge_method: "plain",
  };
  const cases: [string, string, number, string][] = [
    [
      "client_id over everything",
      url({ clientId: "lp_app_sb_nope", redirectUri: archived.redirectUri }, everythingWrong),
      400,
      "oauth.client_not_found",
    ],
    ["redirect_uri over the rest", url(archived, everythingWrong), 400, "oauth.redirect_uri_mismatch"],
    [
      "state over response_type, PKCE, publication",
      url(archived, { ...everythingWrong, redirect_uri: archived.redirectUri }),
      400,
      "oauth.state_required",
    ],
    [
      "response_type over PKCE, publication",
      url(archived, { response_type: "token", code_challenge: challenge, code_challenge_method: "plain" }),
      400,
      "oauth.invalid_request",
    ],
    [
      "PKCE method over publication",
      url(archived, { code_challenge: challenge, code_challenge_method: "plain" }),
      400,
      "oauth.pkce_method_unsupported",
    ],
    ["publication alone", url(archived), 403, "oauth.app_not_published"],
  ];
  const browser = createBrowser(test);
  for (const [name, target, status, code] of cases) {
    const page = await browser.get(target);
    assert.is(page.status, status, name);
    assertErrorPage(page, status, code);
  }
  // Signed in with a company of the wrong environment: the request's own failures still come first.
  const sandboxOwner = await signedIn(sandbox, sandbox.owner);
  assertErrorPage(await sandboxOwner.get(url(archived)), 403, "oauth.app_not_published");
  assertErrorPage(
    await sandboxOwner.get(url(production, { code_challenge_method: "plain" })),
    400,
    "oauth.pkce_method_unsupported",
  );
  assertErrorPage(await sandboxOwner.get(url(production, { state: undefined })), 400, "oauth.state_required");
  assertErrorPage(await sandboxOwner.get(url(production)), 403, "oauth.company_not_eligible");
});

Authorize(
  "scope is accepted and ignored: the screen shows the product bundle, and the approval carries the bundle",
  async () => {
    const owner = await signedIn(sandbox, sandbox.owner);
    for (const scope of ["items.read", "admin everything", "", "openid profile"]) {
      const page = await owner.get(url(sandbox, { scope }));
      assert.is(page.status, 200, page.html);
      for (const granted of [
        "stores.read",
        "items.read",
        "items.write",
        "categories.read",
        "categories.write",
        "orders.read",
        "reports.read",
      ]) {
        assert.match(page.html, `<li><code>${granted}</code></li>`);
      }
      assert.not.match(page.html, "<code>admin</code>");
    }
    const page = await owner.get(url(sandbox, { scope: "admin" }));
    const form: Record<string, string> = { decision: "allow" };
    for (const [, name, value] of page.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      if (!(name! in form)) form[name!] = value!.replace(/&amp;/g, "&");
    }
    assert.is(form["scope"], "admin");
    const approved = await owner.post("/oauth/authorize/decision", form);
    assert.is(approved.status, 302, approved.html);
    const location = new URL(approved.headers.get("location")!);
    assert.is(location.searchParams.get("state"), "st-1");
    const code = location.searchParams.get("code")!;
    const exchanged = await fetch(`${test.base}/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: sandbox.redirectUri,
        client_id: sandbox.clientId,
        client_secret: sandbox.clientSecret,
      }),
    });
    assert.is(exchanged.status, 200);
    const body = (await exchanged.json()) as { scope: string };
    assert.is(
      body.scope,
      "stores.read items.read items.write categories.read categories.write orders.read reports.read",
    );
  },
);

/** The hidden fields of a consent screen, with `decision` set. */
function decisionForm(html: string, decision: string): Record<string, string> {
  const form: Record<string, string> = { decision };
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    if (!(name! in form)) form[name!] = value!.replace(/&amp;/g, "&");
  }
  return form;
}

Authorize(
  "RFC 9207: the approval and the denial carry iss, the metadata's issuer, after the registered URI's own query",
  async () => {
    const metadata = (await (await fetch(`${test.base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    assert.is(metadata["issuer"], `${test.base}/`);
    assert.is(metadata["authorization_response_iss_parameter_supported"], true);
    const iss = encodeURIComponent(`${test.base}/`);
    const owner = await signedIn(sandbox, sandbox.owner);
    const approved = await owner.post(
      "/oauth/authorize/decision",
      decisionForm((await owner.get(url(sandbox))).html, "allow"),
    );
    assert.is(approved.status, 302, approved.html);
    const location = approved.headers.get("location")!;
    const code = new URL(location).searchParams.get("code")!;
    assert.match(code, /^[A-Za-z0-9_-]{43}$/);
    assert.is(
      location,
      `http://127.0.0.1:9/callback?x=1&code=${code}&state=st-1&merchant_id=${sandbox.companyId}&iss=${iss}`,
    );
    const denied = await owner.post(
      "/oauth/authorize/decision",
      decisionForm((await owner.get(url(sandbox))).html, "deny"),
    );
    assert.is(denied.status, 302, denied.html);
    assert.is(
      denied.headers.get("location"),
      `http://127.0.0.1:9/callback?x=1&error=access_denied&state=st-1&iss=${iss}`,
    );
  },
);

Authorize("every page refuses framing: errors, sign-in, unknown paths, wrong methods", async () => {
  const browser = createBrowser(test);
  for (const path of [
    "/oauth/authorize",
    "/oauth/authorize?client_id=x",
    "/oauth/connections",
    "/nowhere",
    "/oauth/sign-in",
    "/oauth/authorize/decision",
    "/healthz",
  ]) {
    const page = await browser.get(path);
    assertNotFramable(page);
  }
  assert.is((await browser.get("/nowhere")).status, 404);
  const get = await browser.get("/oauth/sign-in");
  assert.is(get.status, 405);
  assert.is(get.headers.get("allow"), "POST");
  const post = await browser.post("/oauth/authorize", {});
  assert.is(post.status, 405);
  assert.is(post.headers.get("allow"), "GET, HEAD");
  assertNotFramable(post);
  const probe = await browser.post("/healthz", {});
  assert.is(probe.status, 405);
  assert.is(probe.headers.get("allow"), "GET, HEAD");
});

Authorize("HEAD answers as GET without the body: the same status, type, language and length", async () => {
  for (const path of ["/oauth/authorize?client_id=x", "/oauth/connections", "/healthz", "/readyz", "/nowhere"]) {
    const get = await fetch(`${test.auth}${path}`, { headers: { "accept-language": "hi" }, redirect: "manual" });
    const body = await get.text();
    const head = await fetch(`${test.auth}${path}`, {
      method: "HEAD",
      headers: { "accept-language": "hi" },
      redirect: "manual",
    });
    assert.is(head.status, get.status, path);
    for (const name of ["content-type", "content-language", "content-length", "location", "x-frame-options"])
      assert.is(head.headers.get(name), get.headers.get(name), `${path} ${name}`);
    assert.is(get.headers.get("content-length"), String(Buffer.byteLength(body)), path);
    assert.is(get.headers.get("transfer-encoding"), null, path);
    assert.is(await head.text(), "", path);
  }
});

Authorize.run();
