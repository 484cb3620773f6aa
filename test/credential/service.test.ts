// CredentialService: every rule of the spec it owns, in memory through a Connect client (createRouterTransport) and over
// the internal port with a plain @grpc/grpc-js client; time moves on a manual clock, never by sleeping.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  CreateAppRequestSchema,
  CreateAppResponseSchema,
  CreateOrganizationRequestSchema,
  CreateOrganizationResponseSchema,
  CredentialService,
  Environment,
  MerchantRole,
  Product,
  RotateClientSecretRequestSchema,
  RotateClientSecretResponseSchema,
  VerifyApiKeyRequestSchema,
  VerifyApiKeyResponseSchema,
  VerifyClientCredentialsRequestSchema,
  VerifyClientCredentialsResponseSchema,
} from "../../gen/partnerapi/v1/credential_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { readServiceError } from "../../src/errors/index.js";
import { accessPolicy } from "../../src/internal/access-policy.js";
import { createInternalServer, type InternalServer } from "../../src/internal/internal-server.js";
import { grpcMetadata, testServiceCredentials } from "../support/internal.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { createLogger } from "../../src/runtime/logger.js";
import { apiKeyLimit, createCredentialService } from "../../src/credential/service.js";
import { createSandboxGrants } from "../../src/grant/sandbox-grants.js";
import { useTestDatabase } from "../support/storage.js";
import { reviewLinks } from "../support/app-links.js";

const Credentials = suite("credential/service");
const database = useTestDatabase(Credentials);

const clock = createManualClock(Date.UTC(2026, 5, 1));
const logLines: string[] = [];
const logger = createLogger({ level: "debug", write: (line) => logLines.push(line), now: clock.now });
const config = loadConfig({ DATA_DIR: ":memory:" });

/** A Connect client over an in-memory transport to a CredentialService on the test database. */
function connect(overrides: Record<string, string> = {}): Client<typeof CredentialService> {
  const impl = createCredentialService(
    { config: { ...config, ...loadConfig({ DATA_DIR: ":memory:", ...overrides }) }, clock, ids: cryptoIds, logger },
    { sql: database().sql, sandboxGrants: createSandboxGrants() },
  );
  return createClient(
    CredentialService,
    createRouterTransport(({ service }) => service(CredentialService, impl)),
  );
}

/** The catalogue code a call fails with, or "ok". */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return readServiceError(error).code;
  }
}

let serial = 0;
const unique = (what: string) => `${what} ${process.pid}-${Date.now()}-${++serial}`;

async function newOrganization(client: Client<typeof CredentialService>) {
  const { organization } = await client.createOrganization({ name: unique("org") });
  return organization!.organizationId;
}

/** An app of a new organization; with its three links unless `links` says otherwise (review needs them). */
async function newApp(
  client: Client<typeof CredentialService>,
  product = Product.FULL,
  links: Partial<typeof reviewLinks> = reviewLinks,
) {
  const organizationId = await newOrganization(client);
  const created = await client.createApp({ organizationId, name: unique("app"), product, ...links });
  return { organizationId, app: created.app!, sandbox: created.sandbox! };
}

async function approved(client: Client<typeof CredentialService>, product = Product.FULL) {
  const made = await newApp(client, product);
  await client.submitApp({ appId: made.app.appId });
  const { production } = await client.approveApp({ appId: made.app.appId });
  return { ...made, production: production! };
}

/** The naming fields of an app. */
const pick = (app: { name: string; pendingName: string; state: string }) => ({
  name: app.name,
  pendingName: app.pendingName,
  state: app.state,
});

const works = (client: Client<typeof CredentialService>, clientId: string, clientSecret: string) =>
  codeOf(client.verifyClientCredentials({ clientId, clientSecret }));

Credentials("an app starts in DRAFT with a sandbox pair: prefixes, 256-bit secret, verifies as SANDBOX", async () => {
  const client = connect();
  const { app, sandbox, organizationId } = await newApp(client);
  assert.is(app.state, "DRAFT");
  assert.match(sandbox.clientId, /^lp_app_sb[A-Za-z0-9_-]{24}$/);
  // 43 base64url characters = 32 bytes = 256 bits.
  assert.match(sandbox.clientSecret, /^lp_sk_sb_[A-Za-z0-9_-]{43}$/);
  const verified = await client.verifyClientCredentials({
    clientId: sandbox.clientId,
    clientSecret: sandbox.clientSecret,
  });
  assert.is(verified.app?.appId, app.appId);
  assert.is(verified.app?.organizationId, organizationId);
  assert.is(verified.app?.environment, Environment.SANDBOX);
  assert.is(verified.app?.product, Product.FULL);
  const read = await client.getApp({ appId: app.appId });
  assert.equal(
    read.app?.credentials.map((c) => [c.clientId, c.clientSecret]),
    [[sandbox.clientId, ""]],
  );
});

Credentials(
  "the product never changes: developer.product_immutable; a rename with the same product is fine",
  async () => {
    const client = connect();
    const { app } = await newApp(client, Product.ONLINE_ORDER);
    assert.is(
      await codeOf(client.updateApp({ appId: app.appId, product: Product.FULL })),
      "developer.product_immutable",
    );
    const renamed = await client.updateApp({ appId: app.appId, name: "Renamed", product: Product.ONLINE_ORDER });
    assert.is(renamed.app?.name, "Renamed");
    assert.is(renamed.app?.product, Product.ONLINE_ORDER);
  },
);

Credentials(
  "review: submit, reject, resubmit, approve issues the production pair; wrong states are review_not_in_review",
  async () => {
    const client = connect();
    const { app } = await newApp(client);
    assert.is(await codeOf(client.approveApp({ appId: app.appId })), "developer.review_not_in_review");
    assert.is(await codeOf(client.rejectApp({ appId: app.appId })), "developer.review_not_in_review");
    assert.is((await client.submitApp({ appId: app.appId })).app?.state, "IN_REVIEW");
    assert.is(await codeOf(client.submitApp({ appId: app.appId })), "developer.review_not_in_review");
    assert.is((await client.rejectApp({ appId: app.appId })).app?.state, "REJECTED");
    assert.is((await client.submitApp({ appId: app.appId })).app?.state, "IN_REVIEW");
    const approval = await client.approveApp({ appId: app.appId });
    assert.is(approval.app?.state, "APPROVED");
    assert.match(approval.production!.clientId, /^lp_app_pk/);
    assert.match(approval.production!.clientSecret, /^lp_sk_pk_[A-Za-z0-9_-]{43}$/);
    const verified = await client.verifyClientCredentials({
      clientId: approval.production!.clientId,
      clientSecret: approval.production!.clientSecret,
    });
    assert.is(verified.app?.environment, Environment.PRODUCTION);
    assert.is(verified.app?.appState, "APPROVED");
    assert.is(await codeOf(client.rejectApp({ appId: app.appId })), "developer.review_not_in_review");
    assert.is(await codeOf(client.submitApp({ appId: app.appId })), "developer.review_not_in_review");
  },
);

/** The error a call fails with: its code, params and details as read back. */
async function errorOf(call: Promise<unknown>) {
  try {
    await call;
    return undefined;
  } catch (error) {
    const read = readServiceError(error);
    return { code: read.code, params: read.params, details: read.details };
  }
}

const links = (app: { websiteUrl: string; privacyPolicyUrl: string; termsUrl: string }) => ({
  websiteUrl: app.websiteUrl,
  privacyPolicyUrl: app.privacyPolicyUrl,
  termsUrl: app.termsUrl,
});

Credentials(
  "links: optional at creation, checked (https, no credentials, 2,000 characters), set one at a time; GetApp shows them",
  async () => {
    const client = connect();
    const { app } = await newApp(client, Product.FULL, {});
    assert.equal(links(app), { websiteUrl: "", privacyPolicyUrl: "", termsUrl: "" });
    const made = await client.createApp({
      organizationId: app.organizationId,
      name: unique("linked"),
      product: Product.ADSR,
      websiteUrl: " https://shop.example.com/ ",
    });
    assert.equal(links(made.app!), { websiteUrl: "https://shop.example.com/", privacyPolicyUrl: "", termsUrl: "" });
    // Every offence is in the details; the params name the first.
    assert.equal(
      await errorOf(
        client.createApp({
          organizationId: app.organizationId,
          name: unique("refused"),
          product: Product.FULL,
          websiteUrl: "http://shop.example.com/",
          privacyPolicyUrl: "https://user:secret@shop.example.com/privacy",
          termsUrl: `https://shop.example.com/${"t".repeat(1980)}`,
        }),
      ),
      {
        code: "developer.app_link_invalid",
        params: { field: "website_url", rule: "https_required" },
        details: [
          { field: "website_url", rule: "https_required" },
          { field: "privacy_policy_url", rule: "credentials_not_allowed" },
          { field: "terms_url", rule: "max_length_2000" },
        ],
      },
    );
    assert.equal(await errorOf(client.updateApp({ appId: app.appId, termsUrl: "shop.example.com/terms" })), {
      code: "developer.app_link_invalid",
      params: { field: "terms_url", rule: "not_a_url" },
      details: [{ field: "terms_url", rule: "not_a_url" }],
    });
    // One link at a time; the others are kept, and the name too.
    const updated = await client.updateApp({ appId: app.appId, privacyPolicyUrl: "https://shop.example.com/privacy" });
    assert.equal(links(updated.app!), {
      websiteUrl: "",
      privacyPolicyUrl: "https://shop.example.com/privacy",
      termsUrl: "",
    });
    assert.is(updated.app!.name, app.name);
    await client.updateApp({
      appId: app.appId,
      websiteUrl: "https://shop.example.com/",
      termsUrl: "https://shop.example.com/terms",
    });
    assert.equal(links((await client.getApp({ appId: app.appId })).app!), {
      websiteUrl: "https://shop.example.com/",
      privacyPolicyUrl: "https://shop.example.com/privacy",
      termsUrl: "https://shop.example.com/terms",
    });
    // A draft may remove one (an empty string).
    const removed = await client.updateApp({ appId: app.appId, websiteUrl: "" });
    assert.is(removed.app!.websiteUrl, "");
  },
);

Credentials(
  "review needs the three links: developer.app_links_missing names the missing ones; an app in review or approved keeps them",
  async () => {
    const client = connect();
    const { app } = await newApp(client, Product.FULL, { privacyPolicyUrl: reviewLinks.privacyPolicyUrl });
    assert.equal(await errorOf(client.submitApp({ appId: app.appId })), {
      code: "developer.app_links_missing",
      params: { fields: "website_url, terms_url" },
      details: [
        { field: "website_url", rule: "required" },
        { field: "terms_url", rule: "required" },
      ],
    });
    assert.is((await client.getApp({ appId: app.appId })).app!.state, "DRAFT");
    await client.updateApp({ appId: app.appId, websiteUrl: reviewLinks.websiteUrl, termsUrl: reviewLinks.termsUrl });
    assert.is((await client.submitApp({ appId: app.appId })).app!.state, "IN_REVIEW");
    // In review and after approval a link may change, never go.
    assert.equal(await errorOf(client.updateApp({ appId: app.appId, termsUrl: " " })), {
      code: "developer.app_links_missing",
      params: { fields: "terms_url" },
      details: [{ field: "terms_url", rule: "required" }],
    });
    await client.approveApp({ appId: app.appId });
    assert.is(await codeOf(client.updateApp({ appId: app.appId, websiteUrl: "" })), "developer.app_links_missing");
    const changed = await client.updateApp({ appId: app.appId, websiteUrl: "https://new.example.com/" });
    assert.is(changed.app!.websiteUrl, "https://new.example.com/");
    assert.is(changed.app!.state, "APPROVED");
    // The state check comes first: a submitted app is review_not_in_review whatever its links.
    assert.is(await codeOf(client.submitApp({ appId: app.appId })), "developer.review_not_in_review");
  },
);

Credentials(
  "names after review: a rename of an APPROVED app is pending until ApproveApp takes it or RejectApp drops it; other states rename at once",
  async () => {
    const client = connect();
    const { app } = await newApp(client);
    const reviewed = app.name;
    assert.is(app.pendingName, "");
    // DRAFT (and REJECTED, IN_REVIEW): the name changes at once; nothing was reviewed yet.
    assert.equal(pick((await client.updateApp({ appId: app.appId, name: "Acme Reports" })).app!), {
      name: "Acme Reports",
      pendingName: "",
      state: "DRAFT",
    });
    await client.submitApp({ appId: app.appId });
    const approval = await client.approveApp({ appId: app.appId });
    assert.equal(pick(approval.app!), { name: "Acme Reports", pendingName: "", state: "APPROVED" });
    // APPROVED: the new name is kept aside; GetApp shows both, the reviewed one as the name.
    assert.equal(pick((await client.updateApp({ appId: app.appId, name: " Platform Security Update " })).app!), {
      name: "Acme Reports",
      pendingName: "Platform Security Update",
      state: "APPROVED",
    });
    assert.equal(pick((await client.getApp({ appId: app.appId })).app!), {
      name: "Acme Reports",
      pendingName: "Platform Security Update",
      state: "APPROVED",
    });
    // RejectApp drops the pending name (the app stays approved); with nothing pending it is review_not_in_review.
    assert.equal(pick((await client.rejectApp({ appId: app.appId })).app!), {
      name: "Acme Reports",
      pendingName: "",
      state: "APPROVED",
    });
    assert.is(await codeOf(client.rejectApp({ appId: app.appId })), "developer.review_not_in_review");
    assert.is(await codeOf(client.approveApp({ appId: app.appId })), "developer.review_not_in_review");
    // Renaming back to the reviewed name withdraws a pending one.
    await client.updateApp({ appId: app.appId, name: "Acme Reports 2" });
    assert.equal(pick((await client.updateApp({ appId: app.appId, name: "Acme Reports" })).app!), {
      name: "Acme Reports",
      pendingName: "",
      state: "APPROVED",
    });
    // ApproveApp takes the pending name, issues nothing new, and the app stays APPROVED.
    await client.updateApp({ appId: app.appId, name: "Acme Reports Pro" });
    const named = await client.approveApp({ appId: app.appId });
    assert.equal(pick(named.app!), { name: "Acme Reports Pro", pendingName: "", state: "APPROVED" });
    assert.is(named.production, undefined);
    assert.equal(
      named.app!.credentials.map((c) => c.environment).sort(),
      approval.app!.credentials.map((c) => c.environment).sort(),
    );
    assert.is.not(reviewed, "Acme Reports Pro");
  },
);

Credentials("archive is final: further actions are developer.app_archived; verification reports ARCHIVED", async () => {
  const client = connect();
  const { app, sandbox } = await newApp(client);
  assert.is((await client.archiveApp({ appId: app.appId })).app?.state, "ARCHIVED");
  for (const call of [
    () => client.submitApp({ appId: app.appId }),
    () => client.archiveApp({ appId: app.appId }),
    () => client.updateApp({ appId: app.appId, name: "x" }),
    () => client.rotateClientSecret({ clientId: sandbox.clientId }),
    () => client.setRedirectUris({ appId: app.appId, redirectUris: ["https://example.com/cb"] }),
  ]) {
    assert.is(await codeOf(call()), "developer.app_archived");
  }
  const verified = await client.verifyClientCredentials({
    clientId: sandbox.clientId,
    clientSecret: sandbox.clientSecret,
  });
  assert.is(verified.app?.appState, "ARCHIVED");
  assert.is(await codeOf(client.getApp({ appId: "app_nope" })), "developer.app_not_found");
});

Credentials(
  "wrong id, wrong secret, other environment and revoked credential are all the same invalid_client",
  async () => {
    const client = connect();
    const { sandbox } = await newApp(client);
    const other = await newApp(client);
    const settle = (call: Promise<unknown>) =>
      call.then(
        () => undefined,
        (error: Error) => error,
      );
    const attempts = [
      client.verifyClientCredentials({
        // Another last character: a fixed "A" was the real id one time in 64, and that verification succeeded.
        clientId: sandbox.clientId.slice(0, -1) + (sandbox.clientId.endsWith("A") ? "B" : "A"),
        clientSecret: sandbox.clientSecret,
      }),
      client.verifyClientCredentials({ clientId: sandbox.clientId, clientSecret: other.sandbox.clientSecret }),
      client.verifyClientCredentials({
        clientId: sandbox.clientId,
        clientSecret: sandbox.clientSecret.replace("lp_sk_sb_", "lp_sk_pk_"),
      }),
      client.verifyClientCredentials({ clientId: "nonsense", clientSecret: "" }),
    ].map(settle);
    await client.revokeClientCredential({ clientId: other.sandbox.clientId });
    attempts.push(
      settle(
        client.verifyClientCredentials({ clientId: other.sandbox.clientId, clientSecret: other.sandbox.clientSecret }),
      ),
    );
    const errors = await Promise.all(attempts);
    for (const [index, error] of errors.entries()) {
      assert.ok(error, `attempt ${index} was accepted`);
      assert.is(readServiceError(error).code, "developer.invalid_client");
      assert.is(error?.message, errors[0]?.message);
    }
  },
);

Credentials(
  "rotation: the new secret works at once, the previous until the overlap ends, never more than two",
  async () => {
    const client = connect();
    const { sandbox } = await newApp(client);
    const first = sandbox.clientSecret;
    const rotated = await client.rotateClientSecret({ clientId: sandbox.clientId });
    assert.match(rotated.clientSecret, /^lp_sk_sb_[A-Za-z0-9_-]{43}$/);
    assert.is(rotated.previousSecretExpiresAtMs, BigInt(clock.now() + config.lifetimes.secretRotationOverlap * 1000));
    assert.is(await works(client, sandbox.clientId, rotated.clientSecret), "ok");
    assert.is(await works(client, sandbox.clientId, first), "ok");
    clock.advance(config.lifetimes.secretRotationOverlap * 1000 - 1000);
    assert.is(await works(client, sandbox.clientId, first), "ok");
    clock.advance(1000);
    assert.is(await works(client, sandbox.clientId, first), "developer.invalid_client");
    assert.is(await works(client, sandbox.clientId, rotated.clientSecret), "ok");
    // A second rotation inside an overlap ends the older one at once: three secrets never work together.
    const second = await client.rotateClientSecret({ clientId: sandbox.clientId });
    const third = await client.rotateClientSecret({ clientId: sandbox.clientId });
    assert.is(await works(client, sandbox.clientId, rotated.clientSecret), "developer.invalid_client");
    assert.is(await works(client, sandbox.clientId, second.clientSecret), "ok");
    assert.is(await works(client, sandbox.clientId, third.clientSecret), "ok");
  },
);

Credentials("two parallel rotations leave at most two working secrets", async () => {
  const client = connect();
  const { sandbox } = await newApp(client);
  const [a, b] = await Promise.all([
    client.rotateClientSecret({ clientId: sandbox.clientId }),
    client.rotateClientSecret({ clientId: sandbox.clientId }),
  ]);
  const results = await Promise.all(
    [sandbox.clientSecret, a!.clientSecret, b!.clientSecret].map((secret) => works(client, sandbox.clientId, secret)),
  );
  assert.is(results.filter((result) => result === "ok").length, 2);
  const [row] = await database().sql`
    select count(*)::int as count from control.client_secrets
    where client_id = ${sandbox.clientId} and revoked_at is null and (expires_at is null or expires_at > ${new Date(clock.now())})`;
  assert.is(row?.count, 2);
});

Credentials("a revoked credential stops working within CREDENTIAL_CACHE_SECONDS on another instance", async () => {
  const writer = connect();
  const reader = connect(); // another instance: its own cache, the same database
  const { sandbox } = await newApp(writer);
  assert.is(await works(reader, sandbox.clientId, sandbox.clientSecret), "ok"); // now cached in `reader`
  await writer.revokeClientCredential({ clientId: sandbox.clientId });
  assert.is(await works(writer, sandbox.clientId, sandbox.clientSecret), "developer.invalid_client");
  clock.advance(config.caches.credentialSeconds * 1000 - 1);
  assert.is(
    await works(reader, sandbox.clientId, sandbox.clientSecret),
    "ok",
    "served from the cache inside the bound",
  );
  clock.advance(1);
  assert.is(await works(reader, sandbox.clientId, sandbox.clientSecret), "developer.invalid_client");
});

Credentials(
  "API keys: ADSR only, lp_ak_sb_/lp_ak_pk_, production after approval, shown once, revocation within the bound",
  async () => {
    const writer = connect();
    const reader = connect();
    const full = await newApp(writer, Product.FULL);
    assert.is(
      await codeOf(writer.createApiKey({ appId: full.app.appId, name: "k", environment: Environment.SANDBOX })),
      "developer.invalid_request",
    );
    const adsr = await newApp(writer, Product.ADSR);
    assert.is(
      await codeOf(writer.createApiKey({ appId: adsr.app.appId, name: "k", environment: Environment.PRODUCTION })),
      "developer.app_not_approved",
    );
    const { apiKey } = await writer.createApiKey({
      appId: adsr.app.appId,
      name: "reporting",
      environment: Environment.SANDBOX,
    });
    assert.match(apiKey!.apiKey, /^lp_ak_sb_[A-Za-z0-9_-]{55}$/);
    const read = await writer.getApp({ appId: adsr.app.appId });
    assert.equal(
      read.app?.apiKeys.map((key) => [key.name, key.apiKey, key.revoked]),
      [["reporting", "", false]],
    );
    const verified = await reader.verifyApiKey({ apiKey: apiKey!.apiKey });
    assert.is(verified.app?.appId, adsr.app.appId);
    assert.is(verified.apiKeyId, apiKey!.apiKeyId);
    assert.is(verified.app?.environment, Environment.SANDBOX);
    assert.is(
      await codeOf(
        reader.verifyApiKey({ apiKey: apiKey!.apiKey.slice(0, -2) + (apiKey!.apiKey.endsWith("AA") ? "BB" : "AA") }),
      ),
      "partner.api_key_invalid",
    );
    assert.is(await codeOf(reader.verifyApiKey({ apiKey: "lp_ak_sb_short" })), "partner.api_key_invalid");
    await writer.revokeApiKey({ apiKeyId: apiKey!.apiKeyId });
    assert.is(await codeOf(writer.verifyApiKey({ apiKey: apiKey!.apiKey })), "partner.api_key_invalid");
    assert.is(await codeOf(reader.verifyApiKey({ apiKey: apiKey!.apiKey })), "ok", "cached inside the bound");
    clock.advance(config.caches.credentialSeconds * 1000);
    assert.is(await codeOf(reader.verifyApiKey({ apiKey: apiKey!.apiKey })), "partner.api_key_invalid");
    assert.is(await codeOf(writer.revokeApiKey({ apiKeyId: apiKey!.apiKeyId })), "developer.api_key_not_found");
    await writer.submitApp({ appId: adsr.app.appId });
    await writer.approveApp({ appId: adsr.app.appId });
    const production = await writer.createApiKey({
      appId: adsr.app.appId,
      name: "live",
      environment: Environment.PRODUCTION,
    });
    assert.match(production.apiKey!.apiKey, /^lp_ak_pk_/);
    assert.is(
      (await writer.verifyApiKey({ apiKey: production.apiKey!.apiKey })).app?.environment,
      Environment.PRODUCTION,
    );
  },
);

Credentials(
  "an API key named like a live key of the app is refused, in either environment; a revoked key's name is free",
  async () => {
    const client = connect();
    const { app } = await newApp(client, Product.ADSR);
    const made = await client.createApiKey({ appId: app.appId, name: "Till", environment: Environment.SANDBOX });
    for (const name of ["Till", " till "])
      assert.is(
        await codeOf(client.createApiKey({ appId: app.appId, name, environment: Environment.SANDBOX })),
        "developer.api_key_name_taken",
        name,
      );
    // Another app's keys are not this app's.
    const other = await newApp(client, Product.ADSR);
    assert.is(
      await codeOf(client.createApiKey({ appId: other.app.appId, name: "Till", environment: Environment.SANDBOX })),
      "ok",
    );
    await client.revokeApiKey({ apiKeyId: made.apiKey!.apiKeyId });
    assert.is(
      await codeOf(client.createApiKey({ appId: app.appId, name: "Till", environment: Environment.SANDBOX })),
      "ok",
    );
    const keys = (await client.getApp({ appId: app.appId })).app!.apiKeys;
    assert.equal(keys.map((key) => `${key.name} ${key.revoked}`).sort(), ["Till false", "Till true"]);
  },
);

Credentials(`at most ${apiKeyLimit} live API keys per app, even when created in parallel`, async () => {
  const client = connect();
  const { app } = await newApp(client, Product.ADSR);
  const results = await Promise.all(
    Array.from({ length: apiKeyLimit + 3 }, (_, n) =>
      codeOf(client.createApiKey({ appId: app.appId, name: `k${n}`, environment: Environment.SANDBOX })),
    ),
  );
  assert.is(results.filter((code) => code === "ok").length, apiKeyLimit);
  assert.ok(results.filter((code) => code !== "ok").every((code) => code === "developer.api_key_limit"));
  const error = await client
    .createApiKey({ appId: app.appId, name: "more", environment: Environment.SANDBOX })
    .catch((e) => e);
  assert.equal(readServiceError(error).params, { limit: String(apiKeyLimit) });
  const keys = (await client.getApp({ appId: app.appId })).app!.apiKeys;
  await client.revokeApiKey({ apiKeyId: keys[0]!.apiKeyId });
  assert.is(
    await codeOf(client.createApiKey({ appId: app.appId, name: "again", environment: Environment.SANDBOX })),
    "ok",
  );
});

Credentials(
  "IP allowlists: addresses and CIDR ranges, v4 and v6, canonical; anything else ip_allowlist_invalid",
  async () => {
    const client = connect();
    const { sandbox } = await newApp(client);
    const set = await client.setIpAllowlist({
      clientId: sandbox.clientId,
      allowedIps: ["203.0.113.7", "10.0.0.0/8", "2001:DB8::/32", "::1"],
    });
    assert.equal(set.allowedIps, ["203.0.113.7", "10.0.0.0/8", "2001:db8::/32", "::1"]);
    const verified = await client.verifyClientCredentials({
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
    });
    assert.equal(verified.app?.allowedIps, ["203.0.113.7", "10.0.0.0/8", "2001:db8::/32", "::1"]);
    for (const bad of ["10.0.0.1/8", "300.1.1.1", "1.2.3.4/33", "example.com", "fe80::1%eth0", "2001:db8::/129", ""]) {
      const error = await client
        .setIpAllowlist({ clientId: sandbox.clientId, allowedIps: ["1.1.1.1", bad] })
        .catch((e) => e);
      assert.is(readServiceError(error).code, "developer.ip_allowlist_invalid", bad);
      assert.equal(readServiceError(error).params, { field: "allowed_ips[1]", value: bad });
    }
    assert.equal((await client.getApp({ appId: verified.app!.appId })).app?.credentials[0]?.allowedIps.length, 4);
    const adsr = await newApp(client, Product.ADSR);
    const { apiKey } = await client.createApiKey({
      appId: adsr.app.appId,
      name: "k",
      environment: Environment.SANDBOX,
    });
    await client.setIpAllowlist({ apiKeyId: apiKey!.apiKeyId, allowedIps: ["192.0.2.0/24"] });
    assert.equal((await client.verifyApiKey({ apiKey: apiKey!.apiKey })).app?.allowedIps, ["192.0.2.0/24"]);
    assert.is(await codeOf(client.setIpAllowlist({ allowedIps: [] })), "developer.invalid_request");
  },
);

Credentials(
  "redirect URIs: at most five, https or loopback http, no fragment, 512 characters; details name field and rule",
  async () => {
    const client = connect();
    const { app } = await newApp(client);
    const good = [
      "https://example.com/cb",
      "http://localhost:3000/cb",
      "http://127.0.0.1:9999/callback",
      "http://localhost/",
      "https://example.com/cb?x=1",
    ];
    assert.equal((await client.setRedirectUris({ appId: app.appId, redirectUris: good })).redirectUris, good);
    assert.equal((await client.getApp({ appId: app.appId })).app?.redirectUris, good);
    const six = await client
      .setRedirectUris({ appId: app.appId, redirectUris: [...good, "https://example.com/6"] })
      .catch((e) => e);
    assert.equal(readServiceError(six), { code: "developer.redirect_uri_limit", params: { limit: "5" } });
    const cases: Array<[string, string]> = [
      ["http://example.com/cb", "https_required"],
      ["http://127.0.0.1.evil.test/cb", "https_required"],
      ["ftp://example.com/", "https_required"],
      ["https://example.com/cb#frag", "fragment_not_allowed"],
      [`https://example.com/${"a".repeat(493)}`, "max_length_512"],
      ["not a url", "not_a_url"],
    ];
    for (const [uri, rule] of cases) {
      const error = await client
        .setRedirectUris({ appId: app.appId, redirectUris: ["https://ok.example/", uri] })
        .catch((e) => e);
      assert.equal(
        readServiceError(error),
        {
          code: "developer.redirect_uri_invalid",
          params: { field: "redirect_uris[1]", rule },
          details: [{ field: "redirect_uris[1]", rule }],
        },
        uri,
      );
    }
    // Exactly 512 characters is allowed.
    const longest = `https://example.com/${"a".repeat(492)}`;
    assert.is(longest.length, 512);
    assert.is(await codeOf(client.setRedirectUris({ appId: app.appId, redirectUris: [longest] })), "ok");
    const twice = await client
      .setRedirectUris({ appId: app.appId, redirectUris: ["https://a.example/", "https://a.example/"] })
      .catch((e) => e);
    assert.equal(readServiceError(twice).details, [{ field: "redirect_uris[1]", rule: "duplicate" }]);
  },
);

Credentials(
  "sandbox merchants: country to region, default region knob, unknown country, owner login shown once",
  async () => {
    const client = connect();
    const organizationId = await newOrganization(client);
    const expected: Array<[string, string]> = [
      ["GB", "uk"],
      ["us", "us"],
      ["IN", "in"],
    ];
    for (const [country, region] of expected) {
      const { merchant, owner } = await client.provisionSandboxMerchant({ organizationId, country });
      assert.is(merchant?.region, region, country);
      assert.ok(merchant?.demo && merchant.active);
      assert.is(merchant?.sandboxOrganizationId, organizationId);
      assert.is(owner?.role, MerchantRole.OWNER);
      const signedIn = await client.verifyMerchantUser({ email: owner!.email, password: owner!.password });
      assert.is(signedIn.user?.companyId, merchant?.companyId);
      assert.is(signedIn.user?.password, "");
      assert.is(
        await codeOf(client.verifyMerchantUser({ email: owner!.email, password: owner!.password + "x" })),
        "developer.merchant_user_invalid",
      );
    }
    const other = await newOrganization(client);
    assert.is((await client.provisionSandboxMerchant({ organizationId: other, country: "AE" })).merchant?.region, "ae");
    assert.is((await client.provisionSandboxMerchant({ organizationId: other, country: "FR" })).merchant?.region, "us");
    const elsewhere = connect({ SANDBOX_DEFAULT_REGION: "uk" });
    assert.is(
      (await elsewhere.provisionSandboxMerchant({ organizationId: other, country: "DE" })).merchant?.region,
      "uk",
    );
    for (const country of ["XX", "UK", "EU", "GBR", ""]) {
      assert.is(
        await codeOf(client.provisionSandboxMerchant({ organizationId: other, country })),
        "developer.sandbox_country_unknown",
        country,
      );
    }
  },
);

Credentials("at most three active sandbox merchants; deactivating one frees a place", async () => {
  const client = connect();
  const organizationId = await newOrganization(client);
  const made = [];
  for (let n = 0; n < 3; n++)
    made.push((await client.provisionSandboxMerchant({ organizationId, country: "GB" })).merchant!);
  assert.is(
    await codeOf(client.provisionSandboxMerchant({ organizationId, country: "GB" })),
    "developer.sandbox_limit",
  );
  await client.updateMerchantStatus({ companyId: made[0]!.companyId, active: false });
  assert.is(await codeOf(client.provisionSandboxMerchant({ organizationId, country: "GB" })), "ok");
  assert.is(
    await codeOf(client.updateMerchantStatus({ companyId: made[0]!.companyId, active: true })),
    "developer.sandbox_limit",
  );
  assert.is((await client.listSandboxMerchants({ organizationId })).merchants.filter((m) => m.active).length, 3);
});

Credentials(
  "ten parallel provisioning calls for one organization leave exactly three active sandbox merchants",
  async () => {
    const client = connect();
    const organizationId = await newOrganization(client);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => codeOf(client.provisionSandboxMerchant({ organizationId, country: "US" }))),
    );
    assert.is(results.filter((code) => code === "ok").length, 3);
    assert.is(results.filter((code) => code === "developer.sandbox_limit").length, 7);
    assert.is((await client.listSandboxMerchants({ organizationId })).merchants.filter((m) => m.active).length, 3);
  },
);

Credentials("the organization's sandbox apps are granted its sandbox merchants, whichever came first", async () => {
  const client = connect();
  const { organizationId, app: before } = await newApp(client);
  const { merchant } = await client.provisionSandboxMerchant({ organizationId, country: "GB" });
  const after = (await client.createApp({ organizationId, name: unique("later"), product: Product.ADSR })).app!;
  const stranger = (await newApp(client)).app;
  const rows = await database().sql`
    select app_id, environment from control.grants where company_id = ${Number(merchant!.companyId)} and revoked_at is null order by app_id`;
  assert.equal(
    rows.map((row) => [row.app_id, row.environment]).sort(),
    [
      [before.appId, "SANDBOX"],
      [after.appId, "SANDBOX"],
    ].sort(),
  );
  assert.not.ok(rows.some((row) => row.app_id === stranger.appId));
});

Credentials("merchant directory: live merchants and users; bad region, duplicate email", async () => {
  const client = connect();
  const { merchant } = await client.createMerchant({ name: unique("shop"), region: "in" });
  assert.equal([merchant?.region, merchant?.demo, merchant?.active, merchant?.provisioned], ["in", false, true, false]);
  assert.is(await codeOf(client.createMerchant({ name: "x", region: "eu" })), "developer.invalid_request");
  const email = `${unique("staff").replace(/\W/g, "")}@example.com`;
  const { user } = await client.createMerchantUser({
    companyId: merchant!.companyId,
    email: email.toUpperCase(),
    role: MerchantRole.EMPLOYEE,
  });
  assert.is(user?.email, email.toLowerCase());
  assert.ok(user!.password.length >= 24);
  assert.is(
    await codeOf(client.createMerchantUser({ companyId: merchant!.companyId, email, role: MerchantRole.OWNER })),
    "developer.merchant_user_invalid",
  );
  assert.is(await codeOf(client.getMerchant({ companyId: 1n })), "developer.merchant_not_found");
  const updated = await client.updateMerchantStatus({ companyId: merchant!.companyId, provisioned: true });
  assert.equal([updated.merchant?.active, updated.merchant?.provisioned], [true, true]);
});

Credentials("no secret, key or password is stored in clear or logged", async () => {
  const client = connect();
  const { app, sandbox, organizationId } = await approved(client, Product.ADSR);
  const rotated = await client.rotateClientSecret({ clientId: sandbox.clientId });
  const { apiKey } = await client.createApiKey({ appId: app.appId, name: "k", environment: Environment.SANDBOX });
  const { owner } = await client.provisionSandboxMerchant({ organizationId, country: "GB" });
  const secrets = [sandbox.clientSecret, rotated.clientSecret, apiKey!.apiKey, owner!.password];
  // The random parts too, so a stored key without its prefix would be caught.
  const needles = [...secrets, ...secrets.map((secret) => secret.replace(/^lp_(sk|ak)_(sb|pk)_/, "").slice(-30))];
  const tables = await database().sql<{ table_name: string }[]>`
    select table_name from information_schema.tables where table_schema = 'control' and table_type = 'BASE TABLE'`;
  let dump = "";
  for (const { table_name } of tables) {
    const rows = await database().sql`select t::text as row from ${database().sql(`control.${table_name}`)} t`;
    dump += rows.map((row) => row.row).join("\n");
  }
  assert.ok(dump.includes(sandbox.clientId), "the dump holds the public client id");
  const log = logLines.join("\n");
  assert.ok(log.includes(sandbox.clientId), "the log names the client id");
  for (const needle of needles) {
    assert.not.ok(dump.includes(needle), "a secret is stored in clear");
    assert.not.ok(log.includes(needle), "a secret is logged");
  }
});

Credentials.run();

// ------------------------------------------------------------------ over the internal port, with grpc-js

type GrpcContext = { server: InternalServer; client: grpc.Client };
const OverGrpc = suite<GrpcContext>("credential/service (over gRPC)", {} as GrpcContext);
const grpcDatabase = useTestDatabase(OverGrpc);

/** The operator's credential, sent with every call of this suite. */
let operator: grpc.Metadata;

OverGrpc.before(async (context) => {
  const impl = createCredentialService(
    { config, clock, ids: cryptoIds, logger },
    { sql: grpcDatabase().sql, sandboxGrants: createSandboxGrants() },
  );
  // The verification RPCs are in-process only in the app (src/internal/access-policy.ts); this suite admits the
  // operator to them so their errors can be checked on the wire.
  const policy = {
    ...accessPolicy,
    [CredentialService.typeName]: {
      ...accessPolicy[CredentialService.typeName],
      VerifyClientCredentials: ["operator"],
      VerifyApiKey: ["operator"],
    },
  } as const;
  const { credentials, tokens } = await testServiceCredentials();
  context.server = createInternalServer({
    logger,
    routes: (router) => router.service(CredentialService, impl),
    credentials,
    ids: cryptoIds,
    policy,
  });
  const address = await context.server.listen(0, "127.0.0.1");
  operator = grpcMetadata(tokens.operator);
  context.client = new grpc.Client(`127.0.0.1:${address.port}`, grpc.credentials.createInsecure());
});

OverGrpc.after(async (context) => {
  context.client.close();
  await context.server.close(100);
});

/** One unary call through grpc-js with protobuf-es serialisation. */
function call<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  method: string,
  input: I,
  output: O,
  request: MessageShape<I>,
): Promise<MessageShape<O>> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      `/partnerapi.v1.CredentialService/${method}`,
      (value: MessageShape<I>) => Buffer.from(toBinary(input, value)),
      (bytes: Buffer) => fromBinary(output, bytes),
      request,
      operator,
      (error, value) => (error ? reject(error) : resolve(value as MessageShape<O>)),
    );
  });
}

/** The gRPC status and the ErrorInfo reason of a failed grpc-js call. */
function reasonOf(error: grpc.ServiceError): { status: grpc.status; reason: string | undefined } {
  const [bytes] = error.metadata.get("grpc-status-details-bin") as Buffer[];
  const status = bytes ? fromBinary(StatusSchema, bytes) : undefined;
  const info = status?.details[0] ? anyUnpack(status.details[0], ErrorInfoSchema) : undefined;
  return { status: error.code, reason: info?.reason };
}

OverGrpc(
  "create, verify, rotate and verify again; bad secrets are UNAUTHENTICATED developer.invalid_client",
  async ({ client }) => {
    const { organization } = await call(
      client,
      "CreateOrganization",
      CreateOrganizationRequestSchema,
      CreateOrganizationResponseSchema,
      create(CreateOrganizationRequestSchema, { name: unique("grpc org") }),
    );
    const created = await call(
      client,
      "CreateApp",
      CreateAppRequestSchema,
      CreateAppResponseSchema,
      create(CreateAppRequestSchema, {
        organizationId: organization!.organizationId,
        name: unique("grpc app"),
        product: Product.FULL,
      }),
    );
    const { clientId, clientSecret } = created.sandbox!;
    const verify = (secret: string) =>
      call(
        client,
        "VerifyClientCredentials",
        VerifyClientCredentialsRequestSchema,
        VerifyClientCredentialsResponseSchema,
        create(VerifyClientCredentialsRequestSchema, { clientId, clientSecret: secret }),
      );
    assert.is((await verify(clientSecret)).app?.appId, created.app?.appId);
    const rotated = await call(
      client,
      "RotateClientSecret",
      RotateClientSecretRequestSchema,
      RotateClientSecretResponseSchema,
      create(RotateClientSecretRequestSchema, { clientId }),
    );
    assert.is((await verify(rotated.clientSecret)).app?.environment, Environment.SANDBOX);
    assert.is((await verify(clientSecret)).clientId, clientId, "the previous secret works during the overlap");
    const failure = await verify("lp_sk_sb_" + "A".repeat(43)).catch((error: grpc.ServiceError) => error);
    assert.equal(reasonOf(failure as grpc.ServiceError), {
      status: grpc.status.UNAUTHENTICATED,
      reason: "developer.invalid_client",
    });
    const product = await call(
      client,
      "CreateApp",
      CreateAppRequestSchema,
      CreateAppResponseSchema,
      create(CreateAppRequestSchema, { organizationId: 999_999_999_999n, name: "x", product: Product.FULL }),
    ).catch((error) => error);
    assert.equal(reasonOf(product), { status: grpc.status.NOT_FOUND, reason: "developer.organization_not_found" });
    const key = await call(
      client,
      "VerifyApiKey",
      VerifyApiKeyRequestSchema,
      VerifyApiKeyResponseSchema,
      create(VerifyApiKeyRequestSchema, { apiKey: "lp_ak_pk_nope" }),
    ).catch((error) => error);
    assert.equal(reasonOf(key), { status: grpc.status.UNAUTHENTICATED, reason: "partner.api_key_invalid" });
  },
);

OverGrpc.run();
