// Configuration: the spec's lifetimes and limits as defaults, derived URLs, and errors that name the variable.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ConfigError, loadConfig } from "../../src/config/config.js";

const Config = suite("config/config");

Config("defaults are the spec's values and the embedded setup", () => {
  const config = loadConfig({});
  assert.is(config.listen.host, "127.0.0.1");
  assert.is(config.listen.port, 8080);
  assert.is(config.listen.authPort, 8081);
  assert.is(config.listen.grpcPort, 8090);
  assert.is(config.urls.base, "http://127.0.0.1:8080/");
  assert.is(config.urls.auth, "http://127.0.0.1:8081");
  assert.is(config.databaseUrl, undefined);
  assert.is(config.redisUrl, undefined);
  assert.is(config.dataDir, ".data");
  assert.is(config.lifetimes.authCode, 300);
  assert.is(config.lifetimes.accessToken, 900);
  assert.is(config.lifetimes.refreshToken, 8_640_000);
  assert.is(config.lifetimes.refreshGrace, 60);
  assert.is(config.lifetimes.secretRotationOverlap, 86_400);
  assert.is(config.lifetimes.accessRequest, 2_592_000);
  assert.is(config.limits.partnerPerMinute, 300);
  assert.is(config.limits.sandboxTokenPerMinute, 30);
  assert.is(config.bodyLimitBytes, 65_536);
  assert.is(config.trustProxy, 0);
});

Config("BASE_URL gains a trailing slash and AUTH_URL loses one; empty variables mean unset", () => {
  const config = loadConfig({ BASE_URL: "https://api.example.com", AUTH_URL: "https://auth.example.com/", DATABASE_URL: "" });
  assert.is(config.urls.base, "https://api.example.com/");
  assert.is(config.urls.auth, "https://auth.example.com");
  assert.is(config.databaseUrl, undefined);
});

Config("regions, limits, caches and mail read into named options; the console URL defaults under BASE_URL", () => {
  const config = loadConfig({
    REGIONS: "ae, uk",
    REGION_DATABASE_URL_UK: "postgres://db-uk.internal/uk",
    REGION_GRPC_URL_AE: "https://data-ae.internal:8090",
    OAUTH_INVALID_GRANT_LIMIT: "7",
    CONSOLE_LOCKOUT_SECONDS: "60",
    GATEWAY_CACHE_SECONDS: "0",
  });
  assert.equal(config.servedRegions, ["uk", "ae"]);
  assert.equal(config.regions.uk, { databaseUrl: "postgres://db-uk.internal/uk", grpcUrl: undefined });
  assert.equal(config.regions.ae, { databaseUrl: undefined, grpcUrl: "https://data-ae.internal:8090" });
  assert.equal(config.regions.us, { databaseUrl: undefined, grpcUrl: undefined });
  assert.equal(config.limits, {
    partnerPerMinute: 300,
    sandboxTokenPerMinute: 30,
    oauthTokenPerClient: 600,
    oauthTokenPerAddress: 300,
    oauthInvalidGrants: 7,
    consentSignIn: 10,
    consoleSignIn: 5,
    consoleLockoutSeconds: 60,
  });
  assert.equal(config.caches, { credentialSeconds: 5, gatewaySeconds: 0 });
  assert.equal(config.mail, { transport: "log", from: "Partner API <no-reply@localhost>" });
  assert.is(config.urls.console, "http://127.0.0.1:8080/console");
  assert.is(loadConfig({ CONSOLE_URL: "https://console.example.com/" }).urls.console, "https://console.example.com");
});

Config("bad configuration stops the start with a message naming each variable", () => {
  try {
    loadConfig({ PORT: "eighty", PARTNER_RATE_LIMIT: "0", REDIS_URL: "not a url" });
    assert.unreachable("must throw");
  } catch (error) {
    assert.instance(error, ConfigError);
    const message = (error as Error).message;
    assert.match(message, "PORT");
    assert.match(message, "PARTNER_RATE_LIMIT");
    assert.match(message, "REDIS_URL");
  }
});

Config.run();
