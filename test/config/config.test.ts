// Configuration: the spec's lifetimes and limits as defaults, derived URLs, and errors that name the variable.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ConfigError, loadConfig } from "../../src/config/config.js";

const Config = suite("config/config");

Config("defaults are the spec's values and the embedded setup", () => {
  const config = loadConfig({});
  assert.is(config.HOST, "127.0.0.1");
  assert.is(config.PORT, 8080);
  assert.is(config.AUTH_PORT, 8081);
  assert.is(config.GRPC_PORT, 8090);
  assert.is(config.BASE_URL, "http://127.0.0.1:8080/");
  assert.is(config.AUTH_URL, "http://127.0.0.1:8081");
  assert.is(config.DATABASE_URL, undefined);
  assert.is(config.REDIS_URL, undefined);
  assert.is(config.DATA_DIR, ".data");
  assert.is(config.AUTH_CODE_TTL_SECONDS, 300);
  assert.is(config.ACCESS_TOKEN_TTL_SECONDS, 900);
  assert.is(config.REFRESH_TOKEN_TTL_SECONDS, 8_640_000);
  assert.is(config.REFRESH_GRACE_SECONDS, 60);
  assert.is(config.SECRET_ROTATION_OVERLAP_SECONDS, 86_400);
  assert.is(config.ACCESS_REQUEST_TTL_SECONDS, 2_592_000);
  assert.is(config.PARTNER_RATE_LIMIT, 300);
  assert.is(config.SANDBOX_TOKEN_RATE_LIMIT, 30);
  assert.is(config.BODY_LIMIT_BYTES, 65_536);
  assert.is(config.TRUST_PROXY, 0);
});

Config("BASE_URL gains a trailing slash and AUTH_URL loses one; empty variables mean unset", () => {
  const config = loadConfig({ BASE_URL: "https://api.example.com", AUTH_URL: "https://auth.example.com/", DATABASE_URL: "" });
  assert.is(config.BASE_URL, "https://api.example.com/");
  assert.is(config.AUTH_URL, "https://auth.example.com");
  assert.is(config.DATABASE_URL, undefined);
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
