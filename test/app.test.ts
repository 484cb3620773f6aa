// The whole program as `npm start` runs it, on ports chosen by the system: three listeners, the internal port's
// reflection and health, migrations applied once across restarts, and a graceful stop. (Every RPC is built now;
// the front's own tests cover how an unimplemented one renders.)
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "./support/suite.js";
import * as assert from "uvu/assert";
import { HealthCheckResponse_ServingStatus } from "../gen/grpc/health/v1/health_pb.js";
import { startApp, type RunningApp } from "../src/app.js";
import { loadConfig } from "../src/config/config.js";
import { createLogger } from "../src/runtime/logger.js";
import { dropDatabase, freshDatabaseUrl } from "./support/storage.js";
import { grpcHealthCheck } from "./support/internal.js";

type Context = { app: RunningApp; dataDir: string; databaseUrl: string | undefined; logs: string[] };
const App = suite<Context>("app", {} as Context);

function configFor(context: Context) {
  return loadConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    AUTH_PORT: "0",
    CONSOLE_PORT: "0",
    GRPC_PORT: "0",
    DATA_DIR: context.dataDir,
    DATABASE_URL: context.databaseUrl,
    REDIS_URL: process.env["TEST_REDIS_URL"],
    SHUTDOWN_GRACE_SECONDS: "1",
    SHUTDOWN_DRAIN_SECONDS: "0",
  });
}

async function start(context: Context): Promise<RunningApp> {
  return startApp({ config: configFor(context), logger: createLogger({ write: (line) => context.logs.push(line) }) });
}

App.before(async (context) => {
  context.dataDir = await mkdtemp(join(tmpdir(), "partner-api-app-"));
  context.databaseUrl = await freshDatabaseUrl();
  context.logs = [];
  context.app = await start(context);
});

App.after(async (context) => {
  await context.app.stop();
  if (context.databaseUrl) await dropDatabase(context.databaseUrl);
  await rm(context.dataDir, { recursive: true, force: true });
});

App("a grpc-js health check answers SERVING for the server and for each of the five services", async ({ app }) => {
  for (const service of [
    "",
    "partnerapi.v1.TokenService",
    "partnerapi.v1.GrantService",
    "partnerapi.v1.CredentialService",
    "partnerapi.v1.DataService",
    "partnerapi.v1.ConsoleService",
  ]) {
    assert.is(
      await grpcHealthCheck(app.grpc.port, service),
      HealthCheckResponse_ServingStatus.SERVING,
      service || "(server)",
    );
  }
});

App("the /.well-known documents are anonymous: no partner authentication, no rate-limit headers", async ({ app }) => {
  const jwks = await fetch(`http://127.0.0.1:${app.front.port}/.well-known/jwks.json`);
  assert.is(jwks.status, 200);
  assert.is(jwks.headers.get("content-type"), "application/jwk-set+json");
  assert.is(jwks.headers.get("x-ratelimit-limit"), null);
  const keys = ((await jwks.json()) as { keys: Array<{ kty: string; alg: string; use: string }> }).keys;
  assert.ok(keys.length >= 1);
  assert.equal({ kty: keys[0]!.kty, alg: keys[0]!.alg, use: keys[0]!.use }, { kty: "RSA", alg: "RS256", use: "sig" });
  const metadata = await fetch(`http://127.0.0.1:${app.front.port}/.well-known/oauth-authorization-server`);
  assert.is(metadata.status, 200);
  assert.is(((await metadata.json()) as { issuer: string }).issuer, `http://127.0.0.1:0/`);
});

App("the consent site listens on its own port and refuses to be framed", async ({ app }) => {
  const answer = await fetch(`http://127.0.0.1:${app.consent.port}/healthz`);
  assert.is(answer.status, 200);
  assert.is(answer.headers.get("x-frame-options"), "DENY");
  assert.match(answer.headers.get("content-security-policy")!, "frame-ancestors 'none'");
});

App(
  "a second start against the same database applies no migration twice, and stop closes every listener",
  async (context) => {
    const first = context.logs.filter((line) => line.includes('"migrations applied"')).length;
    assert.is(first, 5, "control and four regions on the first start");
    await context.app.stop();
    for (const port of [context.app.front.port, context.app.consent.port, context.app.grpc.port]) {
      const refused = await fetch(`http://127.0.0.1:${port}/`).then(
        () => false,
        () => true,
      );
      assert.ok(refused, `port ${port} is closed after stop`);
    }
    context.logs.length = 0;
    context.app = await start(context);
    assert.is(context.logs.filter((line) => line.includes('"migrations applied"')).length, 0);
    const rows = await context.app.control.sql`select count(*)::int as count from control.schema_migrations`;
    const bundled = readdirSync(new URL("../src/storage/migrations/control/", import.meta.url)).filter((file) =>
      file.endsWith(".sql"),
    );
    assert.is(rows[0]!["count"], bundled.length);
  },
);

App.run();
