// App self-service in the developer console over HTTP against the real app: a signed-in member with the right role
// submits, renames, archives; rotates a client secret (the new one shown once and minting at /v1/token at once, the
// old one still working in its overlap); sets redirect URIs and IP allowlists (violations in the developer envelope
// with details); creates and revokes ADSR API keys; deactivates a sandbox merchant; asks a live merchant for stores.
// Role enforcement: a viewer is developer.insufficient_org_role on writes, a non-member developer.not_org_member.
// Staff review decisions go through the internal port (gRPC), as operators make them.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, type Client } from "@connectrpc/connect";
import { grpcTransport } from "../support/internal.js";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { readServiceError } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { type Credentials, credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { consoleCall, expectError, mailedLink, tokenOf } from "../support/console.js";
import { randomAddress } from "../support/consent.js";
import { newLiveMerchant, type Answer } from "../support/sandbox.js";
import { reviewLinks } from "../support/app-links.js";

const SelfService = suite("console/apps");
const clock = createManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 15_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let reviews: Client<typeof CredentialService>;
let credentials: Credentials;
let serial = 0;
const password = "correct horse battery staple";

SelfService.before(async () => {
  test = await startTestApp({ clock, redis: true, env: { TRUST_PROXY: "127.0.0.1" } });
  const transport = grpcTransport(test.app.grpc.port, test.internal.staff);
  staff = createClient(ConsoleService, transport);
  reviews = createClient(CredentialService, transport);
  credentials = credentialServiceOf(test, clock);
  await staff.publishAgreementVersion({
    title: "Developer agreement",
    url: "https://partner.test/agreement/self-service",
  });
});
SelfService.after(async () => {
  await test.stop();
});

const newEmail = (who = "dev") => `${who}.${process.pid}.${++serial}@self-service.test`;

// Each call from an address of its own: the per-address limits (console/limits, console/sign-in-lockout) never bind
// here, and runs sharing one Redis never share a counter.
const api = (method: string, path: string, body?: unknown, token?: string): Promise<Answer> =>
  consoleCall(test.base, method, path, body, token, randomAddress());

function ok(answer: Answer): Record<string, unknown> {
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** A verified, signed-in developer with the program approved and the active agreement signed. */
async function admitted(who: string) {
  const email = newEmail(who);
  ok(await api("POST", "/v1/console/account/sign-up", { email, password }));
  ok(await api("POST", "/v1/console/account/verify-email", { token: tokenOf(await mailedLink(test, email)) }));
  const session = ok(await api("POST", "/v1/console/session/sign-in", { email, password }))["session"] as Record<
    string,
    unknown
  >;
  const token = String(session["accessToken"]);
  const applied = ok(await api("POST", "/v1/console/program/applications", { companyName: "Acme Ltd" }, token));
  await staff.decideProgramApplication({
    applicationId: BigInt((applied["application"] as Record<string, number>)["applicationId"]!),
    approve: true,
  });
  const agreement = ok(await api("GET", "/v1/console/program/agreement", undefined, token))["agreement"] as Record<
    string,
    number
  >;
  ok(await api("POST", "/v1/console/program/agreement/signatures", { version: agreement["version"] }, token));
  return { email, token };
}

/** An organization with an owner, a developer-role member, a viewer, and a signed-in outsider. */
async function team() {
  const owner = await admitted("owner");
  const made = ok(await api("POST", "/v1/console/organizations", { name: `Org ${++serial}` }, owner.token));
  const organizationId = Number((made["organization"] as Record<string, number>)["organizationId"]);
  const join = async (who: string, role: string) => {
    const member = await admitted(who);
    ok(
      await api(
        "POST",
        `/v1/console/organizations/${organizationId}/invitations`,
        { email: member.email, role },
        owner.token,
      ),
    );
    ok(
      await api(
        "POST",
        "/v1/console/invitations/accept",
        { token: tokenOf(await mailedLink(test, member.email)) },
        member.token,
      ),
    );
    return member;
  };
  const dev = await join("developer", "DEVELOPER");
  const viewer = await join("viewer", "VIEWER");
  const outsider = await admitted("outsider");
  return { organizationId, owner, dev, viewer, outsider };
}

/** An app made through the console; with its three links unless `links` says otherwise (review needs them). */
async function newApp(
  organizationId: number,
  token: string,
  product: "FULL" | "ADSR" = "FULL",
  links: Record<string, string> = reviewLinks,
) {
  const made = ok(
    await api(
      "POST",
      `/v1/console/organizations/${organizationId}/apps`,
      { name: `App ${++serial}`, product, ...links },
      token,
    ),
  );
  const app = made["app"] as Record<string, unknown>;
  return { appId: String(app["appId"]), sandbox: made["sandbox"] as Record<string, string> };
}

const mint = (clientId: string, clientSecret: string) =>
  api("POST", "/v1/token", { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });

SelfService(
  "update, submit for review, archive: the right role acts; a viewer and a non-member are refused",
  async () => {
    const { organizationId, owner, dev, viewer, outsider } = await team();
    const { appId } = await newApp(organizationId, dev.token);

    const renamed = ok(await api("PATCH", `/v1/console/apps/${appId}`, { name: "Renamed app" }, dev.token))[
      "app"
    ] as Record<string, unknown>;
    assert.is(renamed["name"], "Renamed app");
    expectError(
      await api("PATCH", `/v1/console/apps/${appId}`, { name: "Other", product: "ADSR" }, dev.token),
      409,
      "developer.product_immutable",
    );
    expectError(
      await api("PATCH", `/v1/console/apps/${appId}`, { name: "Viewer's name" }, viewer.token),
      403,
      "developer.insufficient_org_role",
    );
    expectError(
      await api("PATCH", `/v1/console/apps/${appId}`, { name: "Outsider's name" }, outsider.token),
      403,
      "developer.not_org_member",
    );
    expectError(
      await api("GET", `/v1/console/apps/${appId}`, undefined, outsider.token),
      403,
      "developer.not_org_member",
    );
    assert.is(
      (ok(await api("GET", `/v1/console/apps/${appId}`, undefined, viewer.token))["app"] as Record<string, unknown>)[
        "name"
      ],
      "Renamed app",
    );

    expectError(
      await api("POST", `/v1/console/apps/${appId}/submit`, {}, viewer.token),
      403,
      "developer.insufficient_org_role",
    );
    expectError(
      await api("POST", `/v1/console/apps/${appId}/submit`, {}, outsider.token),
      403,
      "developer.not_org_member",
    );
    const submitted = ok(await api("POST", `/v1/console/apps/${appId}/submit`, {}, dev.token))["app"] as Record<
      string,
      unknown
    >;
    assert.is(submitted["state"], "IN_REVIEW");
    expectError(
      await api("POST", `/v1/console/apps/${appId}/submit`, {}, dev.token),
      409,
      "developer.review_not_in_review",
    );

    // Archiving needs admin or owner: a developer-role member is refused.
    expectError(
      await api("POST", `/v1/console/apps/${appId}/archive`, {}, dev.token),
      403,
      "developer.insufficient_org_role",
    );
    expectError(
      await api("POST", `/v1/console/apps/${appId}/archive`, {}, viewer.token),
      403,
      "developer.insufficient_org_role",
    );
    const archived = ok(await api("POST", `/v1/console/apps/${appId}/archive`, {}, owner.token))["app"] as Record<
      string,
      unknown
    >;
    assert.is(archived["state"], "ARCHIVED");
    expectError(
      await api("PATCH", `/v1/console/apps/${appId}`, { name: "Too late" }, dev.token),
      403,
      "developer.app_archived",
    );
    expectError(await api("GET", "/v1/console/apps/app_unknown", undefined, dev.token), 404, "developer.app_not_found");
  },
);

SelfService(
  "rotate the client secret: the new one shown once and minting at once, the old one still working",
  async () => {
    const { organizationId, dev, viewer, outsider } = await team();
    const { appId, sandbox } = await newApp(organizationId, dev.token);
    // A sandbox token needs the organization's one active sandbox merchant.
    ok(
      await api("POST", `/v1/console/organizations/${organizationId}/sandbox-merchants`, { country: "GB" }, dev.token),
    );
    const path = `/v1/console/apps/${appId}/credentials/${sandbox["clientId"]}/rotate-secret`;
    expectError(await api("POST", path, {}, viewer.token), 403, "developer.insufficient_org_role");
    expectError(await api("POST", path, {}, outsider.token), 403, "developer.not_org_member");

    const rotated = await api("POST", path, {}, dev.token);
    const body = ok(rotated);
    assert.is(rotated.headers.get("cache-control"), "no-store");
    assert.is(body["clientId"], sandbox["clientId"]);
    const secret = String(body["clientSecret"]);
    assert.match(secret, /^lp_sk_sb_/);
    assert.is.not(secret, sandbox["clientSecret"]);
    assert.ok(Number(body["previousSecretExpiresAtMs"]) > clock.now());

    const minted = await mint(sandbox["clientId"]!, secret);
    assert.is(minted.status, 200, JSON.stringify(minted.body));
    const old = await mint(sandbox["clientId"]!, sandbox["clientSecret"]!);
    assert.is(old.status, 200, JSON.stringify(old.body));
    // Shown once: reading the app shows client ids, never a secret.
    const app = ok(await api("GET", `/v1/console/apps/${appId}`, undefined, dev.token))["app"] as Record<
      string,
      unknown
    >;
    assert.not.match(JSON.stringify(app), /lp_sk_/);

    // A client id of another app is not this app's.
    const other = await newApp(organizationId, dev.token);
    expectError(
      await api(
        "POST",
        `/v1/console/apps/${appId}/credentials/${other.sandbox["clientId"]}/rotate-secret`,
        {},
        dev.token,
      ),
      404,
      "developer.credential_not_found",
    );
  },
);

SelfService(
  "UpdateDeveloperApp's security settings: require DPoP and require PAR set, kept when not sent, cleared",
  async () => {
    const { organizationId, dev, viewer } = await team();
    const { appId, sandbox } = await newApp(organizationId, dev.token);
    ok(
      await api("POST", `/v1/console/organizations/${organizationId}/sandbox-merchants`, { country: "GB" }, dev.token),
    );
    const settingsOf = (app: Record<string, unknown>) => [
      app["requireDpop"] ?? false,
      app["requirePushedAuthorizationRequests"] ?? false,
    ];
    const patch = async (body: Record<string, unknown>) =>
      ok(await api("PATCH", `/v1/console/apps/${appId}`, body, dev.token))["app"] as Record<string, unknown>;

    assert.equal(settingsOf(await patch({ requireDpop: true })), [true, false]);
    // A change that does not name a setting keeps it.
    assert.equal(settingsOf(await patch({ name: "Bound app" })), [true, false]);
    assert.equal(settingsOf(await patch({ requirePushedAuthorizationRequests: true })), [true, true]);
    const read = ok(await api("GET", `/v1/console/apps/${appId}`, undefined, viewer.token))["app"];
    assert.equal(settingsOf(read as Record<string, unknown>), [true, true]);
    expectError(
      await api("PATCH", `/v1/console/apps/${appId}`, { requireDpop: false }, viewer.token),
      403,
      "developer.insufficient_org_role",
    );
    // The setting binds: past the credential cache, a sandbox token asked for without a DPoP proof is refused.
    clock.advance(6_000);
    const plain = await mint(sandbox["clientId"]!, sandbox["clientSecret"]!);
    assert.is(plain.status, 400, JSON.stringify(plain.body));
    assert.is((plain.body["error"] as Record<string, unknown>)["code"], "developer.dpop_required");
    assert.equal(settingsOf(await patch({ requireDpop: false })), [false, true]);
    clock.advance(6_000);
    assert.is((await mint(sandbox["clientId"]!, sandbox["clientSecret"]!)).status, 200);
  },
);

SelfService("redirect URIs and IP allowlists: violations in the developer envelope", async () => {
  const { organizationId, dev, viewer, outsider } = await team();
  const { appId, sandbox } = await newApp(organizationId, dev.token);
  const uris = `/v1/console/apps/${appId}/redirect-uris`;
  const set = ok(
    await api("PUT", uris, { redirectUris: ["https://partner.test/callback", "http://localhost:8080/cb"] }, dev.token),
  );
  assert.equal(set["redirectUris"], ["https://partner.test/callback", "http://localhost:8080/cb"]);
  expectError(
    await api(
      "PUT",
      uris,
      { redirectUris: ["https://partner.test/ok", "http://partner.test/plain", "https://partner.test/x#frag"] },
      dev.token,
    ),
    400,
    "developer.redirect_uri_invalid",
    { field: "redirect_uris[1]", rule: "https_required" },
    [
      { field: "redirect_uris[1]", rule: "https_required" },
      { field: "redirect_uris[2]", rule: "fragment_not_allowed" },
    ],
  );
  expectError(await api("PUT", uris, { redirectUris: [] }, viewer.token), 403, "developer.insufficient_org_role");
  expectError(await api("PUT", uris, { redirectUris: [] }, outsider.token), 403, "developer.not_org_member");
  const app = ok(await api("GET", `/v1/console/apps/${appId}`, undefined, viewer.token))["app"] as Record<
    string,
    unknown
  >;
  assert.equal(app["redirectUris"], ["https://partner.test/callback", "http://localhost:8080/cb"]);

  const ips = `/v1/console/apps/${appId}/credentials/${sandbox["clientId"]}/allowed-ips`;
  const allowed = ok(await api("PUT", ips, { allowedIps: ["127.0.0.1", "10.0.0.0/8"] }, dev.token));
  assert.equal(allowed["allowedIps"], ["127.0.0.1", "10.0.0.0/8"]);
  expectError(
    await api("PUT", ips, { allowedIps: ["10.0.0.0/8", "not-an-ip"] }, dev.token),
    400,
    "developer.ip_allowlist_invalid",
    {
      field: "allowed_ips[1]",
      value: "not-an-ip",
    },
  );
  expectError(await api("PUT", ips, { allowedIps: [] }, viewer.token), 403, "developer.insufficient_org_role");
  expectError(await api("PUT", ips, { allowedIps: [] }, outsider.token), 403, "developer.not_org_member");
});

SelfService(
  "ADSR API keys: create (shown once), revoke; sandbox merchant deactivated; access request to a live merchant",
  async () => {
    const { organizationId, dev, viewer, outsider } = await team();
    const { appId } = await newApp(organizationId, dev.token, "ADSR");
    const keys = `/v1/console/apps/${appId}/api-keys`;
    expectError(
      await api("POST", keys, { name: "ci", environment: "SANDBOX" }, viewer.token),
      403,
      "developer.insufficient_org_role",
    );
    expectError(
      await api("POST", keys, { name: "ci", environment: "SANDBOX" }, outsider.token),
      403,
      "developer.not_org_member",
    );
    expectError(
      await api("POST", keys, { name: "live", environment: "PRODUCTION" }, dev.token),
      403,
      "developer.app_not_approved",
    );
    const created = await api("POST", keys, { name: "ci", environment: "SANDBOX" }, dev.token);
    assert.is(created.headers.get("cache-control"), "no-store");
    const apiKey = ok(created)["apiKey"] as Record<string, unknown>;
    assert.is(apiKey["name"], "ci");
    assert.ok(String(apiKey["apiKey"]).length > 20);
    const keyId = String(apiKey["apiKeyId"]);
    const listed = ok(await api("GET", `/v1/console/apps/${appId}`, undefined, dev.token))["app"] as Record<
      string,
      Record<string, unknown>[]
    >;
    assert.equal(
      listed["apiKeys"]!.map((key) => key["apiKeyId"]),
      [keyId],
    );
    assert.not.ok(listed["apiKeys"]![0]!["apiKey"]);

    expectError(
      await api("DELETE", `${keys}/${keyId}`, undefined, viewer.token),
      403,
      "developer.insufficient_org_role",
    );
    expectError(await api("DELETE", `${keys}/${keyId}`, undefined, outsider.token), 403, "developer.not_org_member");
    assert.equal(ok(await api("DELETE", `${keys}/${keyId}`, undefined, dev.token)), { revoked: true });
    expectError(await api("DELETE", `${keys}/${keyId}`, undefined, dev.token), 404, "developer.api_key_not_found");

    // A sandbox merchant of the organization, deactivated by a developer-role member.
    const provisioned = ok(
      await api("POST", `/v1/console/organizations/${organizationId}/sandbox-merchants`, { country: "GB" }, dev.token),
    );
    const companyId = Number((provisioned["merchant"] as Record<string, number>)["companyId"]);
    const active = `/v1/console/organizations/${organizationId}/sandbox-merchants/${companyId}/active`;
    expectError(await api("POST", active, { active: false }, viewer.token), 403, "developer.insufficient_org_role");
    expectError(await api("POST", active, { active: false }, outsider.token), 403, "developer.not_org_member");
    const deactivated = ok(await api("POST", active, { active: false }, dev.token))["merchant"] as Record<
      string,
      unknown
    >;
    assert.is(deactivated["companyId"], companyId);
    assert.not.ok(deactivated["active"]);
    const merchants = ok(
      await api("GET", `/v1/console/organizations/${organizationId}/sandbox-merchants`, undefined, viewer.token),
    )["merchants"] as Record<string, unknown>[];
    assert.not.ok(merchants.find((merchant) => merchant["companyId"] === companyId)!["active"]);
    expectError(
      await api(
        "POST",
        `/v1/console/organizations/${organizationId}/sandbox-merchants/987654321/active`,
        { active: false },
        dev.token,
      ),
      404,
      "developer.merchant_not_found",
    );

    // Access requests are for approved ADSR apps: submitted by the member, approved by staff on the internal port.
    const live = await newLiveMerchant(credentials, "us");
    const storeIds = await seedMerchantData(test.app.regionDatabases.get("us")!.sql, "us", live.companyId, {
      storeCount: 2,
      itemCount: 1,
      salesDays: 0,
      onlineOrderCount: 0,
      now: new Date(clock.now()),
    });
    const requests = `/v1/console/apps/${appId}/access-requests`;
    const ask = { companyId: live.companyId, storeIds };
    expectError(await api("POST", requests, ask, dev.token), 403, "developer.app_not_approved");
    ok(await api("POST", `/v1/console/apps/${appId}/submit`, {}, dev.token));
    await reviews.approveApp({ appId });
    expectError(await api("POST", requests, ask, viewer.token), 403, "developer.insufficient_org_role");
    expectError(await api("POST", requests, ask, outsider.token), 403, "developer.not_org_member");
    const made = ok(await api("POST", requests, ask, dev.token))["accessRequest"] as Record<string, unknown>;
    assert.is(made["state"], "PENDING");
    assert.equal(made["storeIds"], storeIds);
    const list = ok(await api("GET", requests, undefined, viewer.token))["accessRequests"] as Record<string, unknown>[];
    assert.equal(
      list.map((row) => row["accessRequestId"]),
      [made["accessRequestId"]],
    );
    expectError(await api("POST", requests, ask, dev.token), 409, "developer.access_request_exists");
  },
);

SelfService(
  "links: created and patched as JSON, checked, read back; submit without them is 409 developer.app_links_missing",
  async () => {
    const { organizationId, dev, viewer } = await team();
    const { appId } = await newApp(organizationId, dev.token, "FULL", { websiteUrl: "https://shop.example.com/" });
    const path = `/v1/console/apps/${appId}`;
    const linksOf = (app: Record<string, unknown>) => ({
      websiteUrl: app["websiteUrl"],
      privacyPolicyUrl: app["privacyPolicyUrl"],
      termsUrl: app["termsUrl"],
    });
    // A link not given is an empty string.
    assert.equal(linksOf(ok(await api("GET", path, undefined, viewer.token))["app"] as Record<string, unknown>), {
      websiteUrl: "https://shop.example.com/",
      privacyPolicyUrl: "",
      termsUrl: "",
    });
    expectError(
      await api("POST", `${path}/submit`, {}, dev.token),
      409,
      "developer.app_links_missing",
      { fields: "privacy_policy_url, terms_url" },
      [
        { field: "privacy_policy_url", rule: "required" },
        { field: "terms_url", rule: "required" },
      ],
    );
    expectError(
      await api("PATCH", path, { privacyPolicyUrl: "http://shop.example.com/privacy", termsUrl: "terms" }, dev.token),
      400,
      "developer.app_link_invalid",
      { field: "privacy_policy_url", rule: "https_required" },
      [
        { field: "privacy_policy_url", rule: "https_required" },
        { field: "terms_url", rule: "not_a_url" },
      ],
    );
    // The front's own bound: a link over 2,000 characters never reaches the service.
    expectError(
      await api("PATCH", path, { termsUrl: `https://shop.example.com/${"t".repeat(2000)}` }, dev.token),
      400,
      "developer.invalid_request",
      { fields: "termsUrl" },
      [{ field: "termsUrl", rule: "must be at most 2000 characters" }],
    );
    expectError(
      await api("PATCH", path, { termsUrl: "https://shop.example.com/terms" }, viewer.token),
      403,
      "developer.insufficient_org_role",
    );
    const patched = ok(
      await api(
        "PATCH",
        path,
        { privacyPolicyUrl: "https://shop.example.com/privacy", termsUrl: "https://shop.example.com/terms" },
        dev.token,
      ),
    )["app"] as Record<string, unknown>;
    assert.equal(linksOf(patched), {
      websiteUrl: "https://shop.example.com/",
      privacyPolicyUrl: "https://shop.example.com/privacy",
      termsUrl: "https://shop.example.com/terms",
    });
    assert.is(patched["name"], `App ${serial}`);
    const submitted = ok(await api("POST", `${path}/submit`, {}, dev.token))["app"] as Record<string, unknown>;
    assert.is(submitted["state"], "IN_REVIEW");
    expectError(
      await api("PATCH", path, { websiteUrl: "" }, dev.token),
      409,
      "developer.app_links_missing",
      { fields: "website_url" },
      [{ field: "website_url", rule: "required" }],
    );
  },
);

SelfService("production credentials: shown once to the organization after a staff approval", async () => {
  const { organizationId, owner, dev, viewer, outsider } = await team();
  const { appId } = await newApp(organizationId, dev.token);
  const reveal = (token: string, org = organizationId, app = appId) =>
    api("POST", `/v1/console/organizations/${org}/apps/${app}/production-credentials`, {}, token);
  expectError(await reveal(dev.token), 403, "developer.app_not_approved");
  ok(await api("POST", `/v1/console/apps/${appId}/submit`, {}, dev.token));
  expectError(await reveal(dev.token), 403, "developer.app_not_approved");
  const approved = await reviews.approveApp({ appId });
  const staffSecret = approved.production!.clientSecret;

  expectError(await reveal(viewer.token), 403, "developer.insufficient_org_role");
  expectError(await reveal(outsider.token), 403, "developer.not_org_member");
  // An app of another organization is unknown under this one.
  const elsewhere = ok(await api("POST", "/v1/console/organizations", { name: `Org ${++serial}` }, owner.token));
  const elsewhereId = Number((elsewhere["organization"] as Record<string, number>)["organizationId"]);
  expectError(await reveal(owner.token, elsewhereId), 404, "developer.app_not_found");

  const shown = await reveal(dev.token);
  assert.is(shown.headers.get("cache-control"), "no-store");
  const production = ok(shown)["production"] as Record<string, string>;
  assert.is(production["clientId"], approved.production!.clientId);
  assert.is(production["environment"], "PRODUCTION");
  assert.match(production["clientSecret"]!, /^lp_sk_/);
  assert.is.not(production["clientSecret"], staffSecret);
  // The organization's secret authenticates the client at once; the one the staff caller saw at approval no longer
  // does. (A production FULL app then mints through the authorization code flow: /v1/token's client_credentials
  // answers developer.use_oauth after authenticating the client, invalid_client before.)
  const verified = await credentials.verifyClientCredentials({
    clientId: production["clientId"]!,
    clientSecret: production["clientSecret"]!,
  });
  assert.is(verified.app!.appId, appId);
  await credentials.verifyClientCredentials({ clientId: production["clientId"]!, clientSecret: staffSecret }).then(
    () => assert.unreachable("the secret shown at approval still works"),
    (error: unknown) => assert.is(readServiceError(error).code, "developer.invalid_client"),
  );
  const minted = await mint(production["clientId"]!, production["clientSecret"]!);
  assert.is(
    (minted.body["error"] as Record<string, unknown>)["code"],
    "developer.use_oauth",
    JSON.stringify(minted.body),
  );
  assert.is((await mint(production["clientId"]!, staffSecret)).status, 401);
  // Once: a second call, by anyone, is refused; rotating remains the way to a new secret.
  expectError(await reveal(owner.token), 409, "developer.production_credentials_already_shown");
  const rotated = ok(
    await api("POST", `/v1/console/apps/${appId}/credentials/${production["clientId"]}/rotate-secret`, {}, dev.token),
  );
  assert.ok(
    (
      await credentials.verifyClientCredentials({
        clientId: production["clientId"]!,
        clientSecret: String(rotated["clientSecret"]),
      })
    ).app,
  );
});

SelfService.run();
