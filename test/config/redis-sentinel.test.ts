// Redis behind Sentinel: REDIS_SENTINELS and REDIS_SENTINEL_NAME read into addresses and a name, checked together
// at start (each bad value stops it, naming the variable), REDIS_URL beside them only for credentials and database.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConfigError, loadConfig } from "../../src/config/config.js";
import { forbiddenWebhookPorts } from "../../src/webhook/delivery-runtime.js";

const Sentinel = suite("config/redis-sentinel");

/** The message of the ConfigError `env` raises. */
function configError(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.instance(error, ConfigError);
    return (error as Error).message;
  }
  assert.unreachable("must throw");
  return "";
}

Sentinel("unset: no Sentinel", () => {
  assert.is(loadConfig({}).redisSentinel, undefined);
  assert.is(loadConfig({ REDIS_SENTINELS: "", REDIS_SENTINEL_NAME: "" }).redisSentinel, undefined);
});

Sentinel("host:port entries, IPv4, names and bracketed IPv6; a missing port is Sentinel's 26379", () => {
  const config = loadConfig({
    REDIS_SENTINELS: "10.0.0.5:26379, sentinel-b.internal:26380,[fd00::5]:26381,sentinel-d",
    REDIS_SENTINEL_NAME: "mymaster",
  });
  assert.equal(config.redisSentinel, {
    sentinels: [
      { host: "10.0.0.5", port: 26379 },
      { host: "sentinel-b.internal", port: 26380 },
      { host: "fd00::5", port: 26381 },
      { host: "sentinel-d", port: 26379 },
    ],
    name: "mymaster",
  });
  assert.is(config.redisUrl, undefined);
});

Sentinel("REDIS_URL beside them gives credentials and database, its host being the primary's name", () => {
  const config = loadConfig({
    REDIS_SENTINELS: "10.0.0.5:26379",
    REDIS_SENTINEL_NAME: "mymaster",
    REDIS_URL: "redis://:secret@mymaster/2",
  });
  assert.is(config.redisUrl, "redis://:secret@mymaster/2");
  assert.equal(config.redisSentinel?.name, "mymaster");
});

Sentinel("each bad value stops the start with a message naming the variable", () => {
  assert.is(
    configError({
      REDIS_SENTINELS: "10.0.0.5:26379, sentinel:abc, a:0, b:70000, c/d:1, :26379",
      REDIS_SENTINEL_NAME: "m",
    }),
    "invalid configuration: REDIS_SENTINELS: not host:port: sentinel:abc, a:0, b:70000, c/d:1, :26379 (e.g. 10.0.0.5:26379,[fd00::5]:26379)",
  );
  assert.is(
    configError({ REDIS_SENTINELS: " , ", REDIS_SENTINEL_NAME: "m" }),
    "invalid configuration: REDIS_SENTINELS: lists no sentinel",
  );
  assert.is(
    configError({ REDIS_SENTINELS: "10.0.0.5:26379", REDIS_SENTINEL_NAME: "my master" }),
    "invalid configuration: REDIS_SENTINEL_NAME: a Sentinel primary name: letters, digits, '.', '_' or '-' (e.g. mymaster)",
  );
  for (const env of [{ REDIS_SENTINELS: "10.0.0.5:26379" }, { REDIS_SENTINEL_NAME: "mymaster" }])
    assert.is(
      configError(env),
      "invalid configuration: REDIS_SENTINELS and REDIS_SENTINEL_NAME go together: set both or neither",
    );
  for (const url of ["redis://redis.internal:6379", "redis://mymaster:6379/0", "rediss://mymaster/0"])
    assert.is(
      configError({ REDIS_SENTINELS: "10.0.0.5:26379", REDIS_SENTINEL_NAME: "mymaster", REDIS_URL: url }),
      "invalid configuration: REDIS_URL: with REDIS_SENTINELS it gives only the primary's credentials and database, " +
        "and its host must be REDIS_SENTINEL_NAME with no port (redis://:password@mymaster/0): the sentinels say where the primary is",
    );
});

Sentinel("NODE_ENV=production takes Sentinel in place of REDIS_URL", () => {
  const config = loadConfig({
    NODE_ENV: "production",
    DATABASE_URL: "postgres://db.internal/partner",
    REDIS_SENTINELS: "10.0.0.5:26379,10.0.0.6:26379,10.0.0.7:26379",
    REDIS_SENTINEL_NAME: "mymaster",
    TOKEN_KEY_ENCRYPTION_KEY: "a".repeat(64),
    MAIL_TRANSPORT: "smtps://mailer:secret@smtp.example.com:465",
  });
  assert.is(config.redisSentinel?.sentinels.length, 3);
});

Sentinel("webhooks never reach a sentinel's port, as they never reach Redis's", () => {
  const config = loadConfig({ REDIS_SENTINELS: "127.0.0.1:26390,127.0.0.1:26391", REDIS_SENTINEL_NAME: "mymaster" });
  const ports = forbiddenWebhookPorts(config);
  assert.ok(ports.has(26390) && ports.has(26391), [...ports].join(","));
});

Sentinel.run();
