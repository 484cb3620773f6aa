// Configuration: the spec's lifetimes and limits as defaults, derived URLs, and errors that name the variable.
import { suite } from "../support/suite.js";
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
  assert.equal(config.trustProxy, [], "TRUST_PROXY unset trusts no proxy");
  assert.is(config.limits.oauthInvalidGrants, 1);
});

Config("BASE_URL gains a trailing slash and AUTH_URL loses one; empty variables mean unset", () => {
  const config = loadConfig({
    BASE_URL: "https://api.example.com",
    AUTH_URL: "https://auth.example.com/",
    DATABASE_URL: "",
  });
  assert.is(config.urls.base, "https://api.example.com/");
  assert.is(config.urls.auth, "https://auth.example.com");
  assert.is(config.databaseUrl, undefined);
});

Config(
  "the internal port binds GRPC_HOST, not HOST; its credentials file defaults into DATA_DIR; TLS goes in pairs",
  () => {
    const defaults = loadConfig({ HOST: "0.0.0.0", DATA_DIR: "/var/lib/pa" });
    assert.is(defaults.listen.host, "0.0.0.0");
    assert.is(defaults.listen.grpcHost, "127.0.0.1");
    assert.equal(defaults.internal, {
      credentialsFile: "/var/lib/pa/internal-credentials",
      credentialsFileIsDefault: true,
      // Development mode: DATA_DIR's own credentials, not production (npm run staff).
      localStaff: true,
      tls: undefined,
    });
    const production = loadConfig(
      { NODE_ENV: "production", DATA_DIR: "/var/lib/pa", DATABASE_URL: "postgres://db/pa" },
      { role: "data", region: "uk" },
    );
    assert.is(production.internal.localStaff, false);
    assert.equal(defaults.regionHop, { credentialFile: undefined, caFile: undefined });
    const set = loadConfig({
      GRPC_HOST: "10.0.0.5",
      GRPC_CREDENTIALS_FILE: "/etc/pa/credentials",
      GRPC_TLS_CERT: "/etc/pa/tls.crt",
      GRPC_TLS_KEY: "/etc/pa/tls.key",
      REGION_GRPC_CREDENTIAL_FILE: "/etc/pa/front-credential",
      REGION_GRPC_CA: "/etc/pa/ca.pem",
    });
    assert.is(set.listen.grpcHost, "10.0.0.5");
    assert.equal(set.internal, {
      credentialsFile: "/etc/pa/credentials",
      credentialsFileIsDefault: false,
      localStaff: false,
      tls: { certFile: "/etc/pa/tls.crt", keyFile: "/etc/pa/tls.key" },
    });
    assert.equal(set.regionHop, { credentialFile: "/etc/pa/front-credential", caFile: "/etc/pa/ca.pem" });
    assert.throws(
      () => loadConfig({ GRPC_TLS_CERT: "/etc/pa/tls.crt" }),
      (error: Error) =>
        error instanceof ConfigError &&
        error.message === "invalid configuration: GRPC_TLS_CERT and GRPC_TLS_KEY go together: set both or neither",
    );
  },
);

Config("regions, limits, caches and mail read into named options; the console URL defaults under BASE_URL", () => {
  const config = loadConfig({
    REGIONS: "ae, uk",
    REGION_DATABASE_URL_UK: "postgres://db-uk.internal/uk",
    REGION_GRPC_URL_AE: "https://data-ae.internal:8090",
    OAUTH_INVALID_GRANT_LIMIT: "7",
    CONSOLE_LOCKOUT_SECONDS: "60",
    CONSOLE_INVITE_LIMIT: "200",
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
    consoleSignInPerAddress: 20,
    consoleSignUpPerAddress: 10,
    consoleResetPerAddress: 20,
    consoleInvitesPerOrganization: 200,
    consoleSandboxProvisionsPerOrganization: 10,
  });
  assert.equal(config.caches, { credentialSeconds: 5, gatewaySeconds: 0 });
  assert.equal(config.mail, { transport: "log", from: "Partner API <no-reply@localhost>" });
  assert.is(config.urls.console, "http://127.0.0.1:8082");
  assert.is(loadConfig({ CONSOLE_URL: "https://console.example.com/" }).urls.console, "https://console.example.com");
});

Config("database timeouts: 2 s to connect and 5 s a statement by default, set in whole seconds, zero refused", () => {
  assert.equal(loadConfig({}).databaseTimeouts, { connectSeconds: 2, querySeconds: 5 });
  assert.equal(
    loadConfig({ DATABASE_CONNECT_TIMEOUT_SECONDS: "3", DATABASE_QUERY_TIMEOUT_SECONDS: "30" }).databaseTimeouts,
    { connectSeconds: 3, querySeconds: 30 },
  );
  for (const [name, value] of [
    ["DATABASE_CONNECT_TIMEOUT_SECONDS", "0"],
    ["DATABASE_CONNECT_TIMEOUT_SECONDS", "31"],
    ["DATABASE_QUERY_TIMEOUT_SECONDS", "0"],
    ["DATABASE_QUERY_TIMEOUT_SECONDS", "1.5"],
  ] as const) {
    assert.match(configError({ [name]: value }), name);
  }
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

Config("TRUST_PROXY: trusted proxies' addresses and CIDR ranges, IPv4 and IPv6, comma separated, canonical", () => {
  assert.equal(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 2001:DB8::/32,127.0.0.1 , ::1" }).trustProxy, [
    "10.0.0.0/8",
    "2001:db8::/32",
    "127.0.0.1",
    "::1",
  ]);
  assert.equal(loadConfig({ TRUST_PROXY: "" }).trustProxy, []);
  assert.equal(loadConfig({ TRUST_PROXY: "10.0.0.1,10.0.0.1" }).trustProxy, ["10.0.0.1"]);
});

Config(
  "WEBHOOK_ALLOW_PRIVATE_NETWORKS: private ranges only, canonical; loopback, link-local, public and junk stop the start",
  () => {
    assert.equal(loadConfig({}).webhooks.allowPrivateNetworks, [], "none by default");
    assert.equal(
      loadConfig({
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "10.77.5.0/24, 10.77.5.0/24,192.168.1.20,FD12:3456::/32,100.64.0.0/10",
      }).webhooks.allowPrivateNetworks,
      ["10.77.5.0/24", "192.168.1.20", "fd12:3456::/32", "100.64.0.0/10"],
    );
    for (const outside of ["127.0.0.0/8", "169.254.169.254", "fe80::/10", "10.0.0.0/7", "93.184.216.34", "0.0.0.0/0"])
      assert.match(
        configError({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: outside }),
        `WEBHOOK_ALLOW_PRIVATE_NETWORKS: not inside a private network (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7): ${outside}`,
      );
    assert.match(
      configError({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "10.0.0.1/8,receiver.internal" }),
      "WEBHOOK_ALLOW_PRIVATE_NETWORKS: not an address or CIDR range: 10.0.0.1/8, receiver.internal",
    );
  },
);

Config(
  "SHUTDOWN_DRAIN_SECONDS: 5 by default with a DATABASE_URL, 0 on the embedded PGlite (no balancer), 0 to 300 whole seconds, anything else stops the start naming it",
  () => {
    const databaseUrl = "postgres://postgres@127.0.0.1:5432/postgres";
    assert.is(loadConfig({ DATABASE_URL: databaseUrl }).shutdownDrainSeconds, 5);
    assert.is(loadConfig({}).shutdownDrainSeconds, 0);
    assert.is(loadConfig({ SHUTDOWN_DRAIN_SECONDS: "5" }).shutdownDrainSeconds, 5, "set, it holds on the embedded too");
    assert.is(loadConfig({ DATABASE_URL: databaseUrl, SHUTDOWN_DRAIN_SECONDS: "0" }).shutdownDrainSeconds, 0);
    assert.is(loadConfig({ SHUTDOWN_DRAIN_SECONDS: "0" }).shutdownDrainSeconds, 0);
    assert.is(loadConfig({ SHUTDOWN_DRAIN_SECONDS: "300" }).shutdownDrainSeconds, 300);
    for (const value of ["-1", "301", "1.5", "soon"])
      assert.match(configError({ SHUTDOWN_DRAIN_SECONDS: value }), "SHUTDOWN_DRAIN_SECONDS");
  },
);

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

Config(
  "TRUST_PROXY: the old hop count stops the start, saying what to write instead; so does anything not a range",
  () => {
    for (const count of ["0", "1", "2"]) {
      assert.is(
        configError({ TRUST_PROXY: count }),
        "invalid configuration: TRUST_PROXY: a hop count is no longer accepted (it trusted X-Forwarded-For even on requests " +
          "that reached us directly); list the trusted proxies' addresses or CIDR ranges, comma separated " +
          "(e.g. 10.0.0.0/8,::1), or leave it unset to trust none",
      );
    }
    assert.is(
      configError({ TRUST_PROXY: "10.0.0.0/8, proxy.internal, 10.0.0.1/8" }),
      "invalid configuration: TRUST_PROXY: not an address or CIDR range: proxy.internal, 10.0.0.1/8",
    );
  },
);

Config(
  "WEBHOOK_APP_CONCURRENCY: half the worker's slots unless set, and always below WEBHOOK_WORKER_CONCURRENCY",
  () => {
    const slots = (env: Record<string, string>) => {
      const { workerConcurrency, appConcurrency, endpointConcurrency } = loadConfig(env).webhooks;
      return { workerConcurrency, appConcurrency, endpointConcurrency };
    };
    assert.equal(slots({}), { workerConcurrency: 16, appConcurrency: 8, endpointConcurrency: 4 });
    assert.equal(slots({ WEBHOOK_WORKER_CONCURRENCY: "7" }), {
      workerConcurrency: 7,
      appConcurrency: 3,
      endpointConcurrency: 4,
    });
    assert.equal(slots({ WEBHOOK_APP_CONCURRENCY: "15" }), {
      workerConcurrency: 16,
      appConcurrency: 15,
      endpointConcurrency: 4,
    });
    assert.is(
      configError({ WEBHOOK_APP_CONCURRENCY: "16" }),
      "invalid configuration: WEBHOOK_APP_CONCURRENCY (16) must be below WEBHOOK_WORKER_CONCURRENCY (16), or one app's endpoints could hold every slot",
    );
    assert.is(
      configError({ WEBHOOK_WORKER_CONCURRENCY: "4", WEBHOOK_APP_CONCURRENCY: "8" }),
      "invalid configuration: WEBHOOK_APP_CONCURRENCY (8) must be below WEBHOOK_WORKER_CONCURRENCY (4), or one app's endpoints could hold every slot",
    );
    for (const value of ["0", "-1", "1.5", "many"])
      assert.match(configError({ WEBHOOK_APP_CONCURRENCY: value }), "WEBHOOK_APP_CONCURRENCY: ");
    // One slot cannot be shared between tenants.
    assert.match(configError({ WEBHOOK_WORKER_CONCURRENCY: "1" }), "WEBHOOK_WORKER_CONCURRENCY: ");
  },
);

/** A production environment with every setting production needs. */
const production = {
  NODE_ENV: "production",
  DATABASE_URL: "postgres://db.internal/partner",
  REDIS_URL: "redis://redis.internal:6379",
  TOKEN_KEY_ENCRYPTION_KEY: "a".repeat(64),
  MAIL_TRANSPORT: "smtps://mailer:secret@smtp.example.com:465",
};

Config("NODE_ENV=production starts on production settings", () => {
  const config = loadConfig(production);
  assert.is(config.databaseUrl, production.DATABASE_URL);
  assert.is(config.redisUrl, production.REDIS_URL);
});

Config("NODE_ENV=production refuses each development-only setting, naming its variable", () => {
  const cases: Array<[string, Record<string, string | undefined>, string]> = [
    [
      "DATABASE_URL",
      { DATABASE_URL: undefined },
      "DATABASE_URL: required when NODE_ENV=production (the embedded PGlite is for development)",
    ],
    [
      "REDIS_URL",
      { REDIS_URL: "" },
      "REDIS_URL: required when NODE_ENV=production, or REDIS_SENTINELS (without Redis every process keeps its own limits and throttles)",
    ],
    [
      "TOKEN_KEY_ENCRYPTION_KEY",
      { TOKEN_KEY_ENCRYPTION_KEY: undefined },
      "TOKEN_KEY_ENCRYPTION_KEY: required when NODE_ENV=production (a key generated into DATA_DIR is for development)",
    ],
    [
      "MAIL_TRANSPORT",
      { MAIL_TRANSPORT: "log" },
      "MAIL_TRANSPORT: must be an smtp:// or smtps:// URL when NODE_ENV=production (log writes mailed links to the log)",
    ],
    [
      "MAIL_TRANSPORT",
      { MAIL_TRANSPORT: undefined },
      "MAIL_TRANSPORT: must be an smtp:// or smtps:// URL when NODE_ENV=production (log writes mailed links to the log)",
    ],
    [
      "PASSWORD_HASH_COST",
      { PASSWORD_HASH_COST: "14" },
      "PASSWORD_HASH_COST: at least 15 when NODE_ENV=production (OWASP's minimum for scrypt; lower is for tests)",
    ],
  ];
  for (const [variable, change, problem] of cases) {
    assert.is(configError({ ...production, ...change }), `invalid configuration: ${problem}`, variable);
  }
  // Every problem at once, and none outside production.
  const bare = configError({ NODE_ENV: "production" });
  for (const variable of ["DATABASE_URL", "REDIS_URL", "TOKEN_KEY_ENCRYPTION_KEY", "MAIL_TRANSPORT"])
    assert.match(bare, `${variable}: `);
  for (const env of ["development", "test", "", undefined])
    assert.is(loadConfig({ NODE_ENV: env }).databaseUrl, undefined);
});

Config("PASSWORD_HASH_COST: scrypt's log2 N for new passwords, 15 unless set, 10 to 20", () => {
  assert.is(loadConfig({}).passwordHashCost, 15);
  assert.is(loadConfig({ PASSWORD_HASH_COST: "10" }).passwordHashCost, 10);
  assert.is(loadConfig({ ...production, PASSWORD_HASH_COST: "16" }).passwordHashCost, 16);
  assert.is(
    configError({ PASSWORD_HASH_COST: "9" }),
    "invalid configuration: PASSWORD_HASH_COST: Too small: expected number to be >=10",
  );
  assert.is(
    configError({ PASSWORD_HASH_COST: "21" }),
    "invalid configuration: PASSWORD_HASH_COST: Too big: expected number to be <=20",
  );
});

Config("NODE_ENV=production for a data role needs only its region's PostgreSQL: no Redis, token key or mail", () => {
  const data = { role: "data", region: "uk" } as const;
  const regional = loadConfig(
    { NODE_ENV: "production", REGION_DATABASE_URL_UK: "postgres://uk-db.internal/partner" },
    data,
  );
  assert.is(regional.regions.uk.databaseUrl, "postgres://uk-db.internal/partner");
  assert.is(
    loadConfig({ NODE_ENV: "production", DATABASE_URL: "postgres://db.internal/partner" }, data).databaseUrl,
    "postgres://db.internal/partner",
  );
  let message = "";
  try {
    loadConfig({ NODE_ENV: "production", REGION_DATABASE_URL_US: "postgres://us-db.internal/partner" }, data);
  } catch (error) {
    assert.instance(error, ConfigError);
    message = (error as Error).message;
  }
  assert.is(
    message,
    "invalid configuration: REGION_DATABASE_URL_UK or DATABASE_URL: required when NODE_ENV=production (the embedded PGlite is for development)",
  );
  // A front is held to every production setting, as an all-roles process is.
  assert.match(configError({ NODE_ENV: "production", DATABASE_URL: "postgres://db.internal/partner" }), "REDIS_URL: ");
});

Config.run();
