// The consent site's connected-apps page over plain HTTP: the owner sees the apps connected to the company and
// disconnects one with a CSRF-protected POST, after which that app's refresh token answers invalid_grant /
// oauth.grant_revoked for good while the other app keeps working; an employee sees the list but cannot disconnect;
// a disconnect only ever touches the signed-in user's own company.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { credentialServiceOf, hiddenValue, startTestApp, type TestApp } from "../support/test-app.js";
import {
  assertNotFramable,
  authorizeWith,
  createBrowser,
  newSandboxWorld,
  type Browser,
  type Page,
} from "../support/consent.js";

const Connections = suite("consent/connected-apps");
const clock = createManualClock(Date.now());
let test: TestApp;
let worlds = 0;

Connections.before(async () => {
  test = await startTestApp({ clock, redis: true, env: { TRUST_PROXY: "127.0.0.1" } });
});
Connections.after(async () => {
  await test.stop();
});

interface Client {
  appId: string;
  appName: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** A company with two apps of its organization (FULL and ONLINE_ORDER), each connected by the owner. */
async function connectedCompany() {
  const world = await newSandboxWorld(test, clock, `http://127.0.0.1:9/connected/${++worlds}`);
  const credentials = credentialServiceOf(test, clock);
  const second = await credentials.createApp({
    organizationId: BigInt(world.organizationId),
    name: `Orders ${worlds}`,
    product: Product.ONLINE_ORDER,
  });
  const secondRedirect = `https://orders.example.test/callback/${worlds}`;
  await credentials.setRedirectUris({ appId: second.app!.appId!, redirectUris: [secondRedirect] });
  const first: Client = {
    appId: world.appId,
    appName: await storedName(world.appId),
    clientId: world.clientId,
    clientSecret: world.clientSecret,
    redirectUri: world.redirectUri,
  };
  const other: Client = {
    appId: second.app!.appId!,
    appName: `Orders ${worlds}`,
    clientId: second.sandbox!.clientId!,
    clientSecret: second.sandbox!.clientSecret!,
    redirectUri: secondRedirect,
  };
  const owner = await signedIn(world.owner);
  const tokens = { first: await connect(owner, first), other: await connect(owner, other) };
  return { world, owner, first, other, tokens };
}

async function signedIn(user: { email: string; password: string }): Promise<Browser> {
  const browser = createBrowser(test);
  const form = await browser.get("/oauth/connections");
  const answer = await browser.signIn(form, user);
  assert.is(answer.status, 303, answer.html);
  assert.is(answer.headers.get("location"), "/oauth/connections");
  return browser;
}

/** Approves `client` as the browser's owner and exchanges the code; the refresh token. */
async function connect(browser: Browser, client: Client): Promise<string> {
  const consent = await browser.get(
    authorizeWith(test, {
      response_type: "code",
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      state: "s",
    }),
  );
  assert.is(consent.status, 200, consent.html);
  const form: Record<string, string> = { decision: "allow" };
  for (const name of ["csrf", "response_type", "client_id", "redirect_uri", "state"])
    form[name] = hiddenValue(consent.html, name);
  const approved = await browser.post("/oauth/authorize/decision", form);
  assert.is(approved.status, 302, approved.html);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const exchanged = await token(client, { grant_type: "authorization_code", code, redirect_uri: client.redirectUri });
  assert.is(exchanged.status, 200, JSON.stringify(exchanged.body));
  return exchanged.body["refresh_token"] as string;
}

async function token(client: Client, fields: Record<string, string>) {
  const response = await fetch(`${test.base}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret, ...fields }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Refreshes and returns the successor (asserting 200), so the caller can keep a live token. */
async function refreshed(client: Client, refreshToken: string): Promise<string> {
  const answer = await token(client, { grant_type: "refresh_token", refresh_token: refreshToken });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return answer.body["refresh_token"] as string;
}

const grantRevoked = {
  error: "invalid_grant",
  error_description: messageFor("oauth.grant_revoked"),
  code: "oauth.grant_revoked",
};

/** The app names listed on a connections page. */
const listed = (page: Page) =>
  [...page.html.matchAll(/<li class="connection">.*?class="asker-name">([^<]*)<\/h2>/gs)].map((match) => match[1]);

/** An app's name as stored (the OAuth support names its apps). */
async function storedName(appId: string): Promise<string> {
  const [row] = await test.app.control.sql<{ name: string }[]>`select name from control.apps where id = ${appId}`;
  return row!.name;
}

Connections(
  "the owner sees the connected apps and disconnects one; its refresh token is then oauth.grant_revoked",
  async () => {
    const { owner, first, other, tokens } = await connectedCompany();
    const page = await owner.get("/oauth/connections");
    assert.is(page.status, 200);
    assertNotFramable(page);
    assert.match(page.html, `<title>Apps connected to Shop `);
    assert.equal(listed(page), [first.appName, other.appName]);
    assert.match(page.html, `class="asker-name">${first.appName}</h2>\n<p class="asker-developer">by oauth test `);
    assert.match(page.html, `<span class="badge unreviewed">Not reviewed: sandbox app</span>`);
    assert.match(page.html, "Full back-office integration · Test (sandbox)</p>");
    assert.match(page.html, "Online ordering · Test (sandbox)</p>");
    // Per app: what it may do, since when, and when it last called (none of these apps has called yet).
    assert.match(
      page.html,
      `<ul class="permissions compact" aria-label="Permissions of ${first.appName}"><li>See your stores</li>`,
    );
    assert.match(
      page.html,
      /Connected on <time datetime="\d{4}-\d{2}-\d{2}"><bdi>[A-Z][a-z]{2} \d{1,2}, \d{4}<\/bdi><\/time> · Not used yet/,
    );
    assert.match(page.html, `aria-label="Disconnect ${first.appName}">Disconnect</button>`);
    assert.match(page.html, `<input type="hidden" name="app_id" value="${first.appId}">`);

    // First the consequence, with nothing changed yet; then the disconnect from the confirmation's own form.
    const confirm = await owner.post("/oauth/connections/disconnect", {
      csrf: hiddenValue(page.html, "csrf"),
      app_id: first.appId,
    });
    assert.is(confirm.status, 200);
    assert.match(confirm.html, `<h1>Disconnect ${first.appName}?</h1>`);
    assert.match(confirm.html, `loses access to your business at once`);
    assert.match(confirm.html, `<input type="hidden" name="confirm" value="yes">`);
    assert.match(confirm.html, `<a class="button secondary" href="/oauth/connections">Keep it connected</a>`);
    assertNotFramable(confirm);
    assert.equal(listed(await owner.get("/oauth/connections")), [first.appName, other.appName]);
    const disconnected = await owner.post("/oauth/connections/disconnect", {
      csrf: hiddenValue(page.html, "csrf"),
      app_id: first.appId,
      confirm: "yes",
    });
    assert.is(disconnected.status, 200);
    assert.match(
      disconnected.html,
      `<div class="alert ok" id="done" role="status" tabindex="-1" autofocus><p>${first.appName} is disconnected. It can no longer use your data.</p></div>`,
    );
    assertNotFramable(disconnected);
    assert.equal(listed(disconnected), [other.appName]);
    assert.equal(listed(await owner.get("/oauth/connections")), [other.appName]);

    const refused = await token(first, { grant_type: "refresh_token", refresh_token: tokens.first });
    assert.is(refused.status, 400);
    assert.equal(refused.body, grantRevoked);
    // The other app is untouched.
    await refreshed(other, tokens.other);

    // Connecting again makes a new grant; the old family stays revoked for good.
    const again = await connect(owner, first);
    await refreshed(first, again);
    assert.equal((await token(first, { grant_type: "refresh_token", refresh_token: tokens.first })).body, grantRevoked);
    assert.equal(listed(await owner.get("/oauth/connections")), [other.appName, first.appName]);
  },
);

Connections(
  "a rename of an approved app waits for review: the consent screen and connected apps keep the reviewed name until approval",
  async () => {
    const { owner, first, other } = await connectedCompany();
    const credentials = credentialServiceOf(test, clock);
    await credentials.submitApp({ appId: first.appId });
    await credentials.approveApp({ appId: first.appId });
    const renamed = await credentials.updateApp({ appId: first.appId, name: "Platform Security Update" });
    assert.is(renamed.app!.name, first.appName);
    assert.is(renamed.app!.pendingName, "Platform Security Update");
    const consentUrl = authorizeWith(test, {
      response_type: "code",
      client_id: first.clientId,
      redirect_uri: first.redirectUri,
      state: "s",
    });
    const shows = async (name: string) => {
      const consent = await owner.get(consentUrl);
      assert.is(consent.status, 200, consent.html);
      assert.match(consent.html, `class="asker-name">${name}</h2>`);
      assert.match(
        consent.html,
        `<p class="lead"><strong class="name"><bdi>${name}</bdi></strong> wants to connect to <strong`,
      );
      assert.equal(listed(await owner.get("/oauth/connections")), [name, other.appName]);
    };
    await shows(first.appName);
    assert.not.match((await owner.get(consentUrl)).html, "Platform Security Update");
    // Staff approve the name: it takes effect everywhere at once.
    const approvedName = await credentials.approveApp({ appId: first.appId });
    assert.is(approvedName.app!.name, "Platform Security Update");
    assert.is(approvedName.app!.pendingName, "");
    await shows("Platform Security Update");
  },
);

Connections(
  "disconnect is CSRF-protected: no token, another token, another site: 403 and nothing disconnected",
  async () => {
    const { owner, first, tokens } = await connectedCompany();
    const page = await owner.get("/oauth/connections");
    const csrf = hiddenValue(page.html, "csrf");
    const attempts: [string, Page][] = [
      ["no token", await owner.post("/oauth/connections/disconnect", { app_id: first.appId })],
      [
        "another token",
        await owner.post("/oauth/connections/disconnect", { app_id: first.appId, csrf: "C".repeat(43) }),
      ],
      [
        "another site",
        await owner.post(
          "/oauth/connections/disconnect",
          { app_id: first.appId, csrf },
          { origin: "https://evil.example" },
        ),
      ],
    ];
    for (const [name, answer] of attempts) {
      assert.is(answer.status, 403, name);
      assert.is(answer.headers.get("location"), null, name);
      assertNotFramable(answer);
    }
    // A cross-site form post carries no session cookie (SameSite=Lax): signed out.
    const cookieless = createBrowser(test);
    const signedOut = await cookieless.post("/oauth/connections/disconnect", { app_id: first.appId, csrf });
    assert.is(signedOut.status, 401);
    assert.equal(listed(await owner.get("/oauth/connections")).length, 2);
    await refreshed(first, tokens.first);
  },
);

Connections(
  "an employee sees the list without Disconnect buttons, and a disconnect POST is refused (403)",
  async () => {
    const { world, first, other, tokens } = await connectedCompany();
    const employee = await signedIn(world.employee);
    const page = await employee.get("/oauth/connections");
    assert.is(page.status, 200);
    assertNotFramable(page);
    assert.is(listed(page).length, 2);
    assert.not.match(page.html, "/oauth/connections/disconnect");
    assert.not.match(page.html, ">Disconnect</button>");
    assert.match(page.html, '<p role="note">Only the account owner can disconnect apps.</p>');
    const refused = await employee.post("/oauth/connections/disconnect", {
      csrf: hiddenValue(page.html, "csrf"),
      app_id: first.appId,
    });
    assert.is(refused.status, 403);
    assert.is(refused.headers.get("location"), null);
    assert.match(refused.html, "Only the account owner can disconnect apps.");
    assertNotFramable(refused);
    await refreshed(first, tokens.first);
    await refreshed(other, tokens.other);
  },
);

Connections(
  "an owner of another company cannot disconnect this company's app; signed out, the page asks to sign in",
  async () => {
    const { first, tokens } = await connectedCompany();
    const stranger = await newSandboxWorld(test, clock, `http://127.0.0.1:9/stranger/${++worlds}`);
    const strangerOwner = await signedIn(stranger.owner);
    const page = await strangerOwner.get("/oauth/connections");
    assert.not.ok(listed(page).includes(first.appName), "another company's apps are not listed");
    for (const confirm of ["", "yes"]) {
      const answer = await strangerOwner.post("/oauth/connections/disconnect", {
        csrf: hiddenValue(page.html, "csrf"),
        app_id: first.appId,
        confirm,
      });
      assert.is(answer.status, 200); // nothing of theirs to disconnect: their own list, unchanged, no message
      assert.not.match(answer.html, first.appName);
      assert.not.match(answer.html, 'id="done"');
    }
    await refreshed(first, tokens.first);

    const signedOut = await createBrowser(test).get("/oauth/connections");
    assert.is(signedOut.status, 200);
    assert.match(signedOut.html, '<button type="submit">Sign in</button>');
    assert.is(hiddenValue(signedOut.html, "return_to"), "/oauth/connections");
    assertNotFramable(signedOut);
  },
);

Connections.run();
