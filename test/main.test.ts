// `npm start` as a process: it starts on its configuration, says where it listens, and on SIGTERM finishes and exits 0;
// a bad configuration stops it with a message naming the variable; a brand-new embedded start makes an operator
// credential for the internal port that the real buf CLI can use.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { connect } from "node:net";
import { appendFile, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { seedEmbeddedDatabase } from "./support/embedded-template.js";
import { testPasswordCostEnv } from "./support/password-cost.js";
import { programCommand, sourceLoaderFlags } from "./support/role-process.js";
import { skipTest, suite } from "./support/suite.js";
import * as assert from "uvu/assert";
import postgres from "postgres";
import { dropDatabase, freshDatabaseUrl } from "./support/storage.js";

const Main = suite("main");

/** Every program a test started: one a failed test left running is killed after it. */
const programs = new Set<ChildProcess>();

// A test that fails before stopping its program must not leave it running: it would hold the file open for good.
Main.after.each(() => {
  for (const child of programs) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  programs.clear();
});

/** Starts the program on `env` (a variable given as undefined is left unset: SHUTDOWN_DRAIN_SECONDS is "0" if not). */
function run(env: Record<string, string | undefined>, args: string[] = []) {
  const { command, argv } = programCommand(args);
  const given = { PATH: process.env["PATH"] ?? "", SHUTDOWN_DRAIN_SECONDS: "0", ...testPasswordCostEnv(env), ...env };
  const child = spawn(command, argv, {
    env: Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  programs.add(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // Generous: a brand-new embedded start runs initdb in WebAssembly, which takes minutes on a loaded machine.
  const line = (message: string, timeoutMs = 180_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no "${message}" line; stdout: ${stdout} stderr: ${stderr}`)),
        timeoutMs,
      );
      // A wait nobody awaits any more (its test ended) must not hold the file's process open; the test's own
      // timeout (test/support/suite.ts) bounds a wait that is awaited.
      timer.unref();
      const check = () => {
        const found = stdout.split("\n").find((text) => text.includes(`"msg":"${message}"`));
        if (!found) return;
        clearTimeout(timer);
        child.stdout.off("data", check);
        resolve(JSON.parse(found) as Record<string, unknown>);
      };
      child.stdout.on("data", check);
      check();
    });
  return { child, exited, line, output: () => ({ stdout, stderr }) };
}

const bufBin = fileURLToPath(new URL("../node_modules/.bin/buf", import.meta.url));

/** The real buf CLI (`buf curl ...`); resolves with its exit code and output, never rejects on a non-zero exit. */
function buf(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bufBin, args, { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const generatedLine = "internal port: generated an operator credential for this embedded start";

Main("starts, serves, and exits 0 after SIGTERM once requests are done", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-main-"));
  const databaseUrl = await freshDatabaseUrl();
  if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
  try {
    const process = run({
      HOST: "127.0.0.1",
      PORT: "0",
      AUTH_PORT: "0",
      CONSOLE_PORT: "0",
      GRPC_PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? "",
    });
    const ready = await process.line("partner API ready");
    const answer = await fetch(`${ready["front"]}/v1/oauth/token`, { method: "POST" });
    assert.is(answer.status, 400);
    const consent = await fetch(`${ready["consent"]}/healthz`);
    assert.is(consent.status, 200);
    process.child.kill("SIGTERM");
    await process.line("stopped");
    assert.is(await process.exited, 0);
  } finally {
    if (databaseUrl) await dropDatabase(databaseUrl);
    await rm(dataDir, { recursive: true, force: true });
  }
});

// Ctrl-C on a local `npm start` (the embedded PGlite, SHUTDOWN_DRAIN_SECONDS unset) stops without the drain: no
// balancer watches /readyz there (issue 42). With a DATABASE_URL the default drain stays 5 s (test/config).
Main("Ctrl-C (SIGINT) on the embedded start skips the drain: it logs drainSeconds 0, stops and exits 0", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-main-"));
  await seedEmbeddedDatabase(dataDir);
  try {
    const process = run({
      HOST: "127.0.0.1",
      PORT: "0",
      AUTH_PORT: "0",
      CONSOLE_PORT: "0",
      GRPC_PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      SHUTDOWN_DRAIN_SECONDS: undefined,
    });
    await process.line("partner API ready");
    process.child.kill("SIGINT");
    const shutting = await process.line("shutting down: finishing requests in flight");
    assert.is(shutting["signal"], "SIGINT");
    assert.is(shutting["drainSeconds"], 0);
    const stopped = await process.line("stopped");
    assert.is(stopped["forced"], undefined);
    assert.is(await process.exited, 0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

// The listeners answer (/readyz 200) while a brand-new embedded start is still writing the demo world; a SIGTERM
// then (an orchestrator stopping a pod that just became ready) used to end the process at once, exit 143, halfway
// through the world. It now waits for the world, writes demo.json, stops and exits 0.
Main("a SIGTERM while the demo world is being written waits for it, then stops and exits 0", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-main-"));
  // The embedded database from the migrated template: the demo world is written all the same (no demo.json yet);
  // a brand-new database's own start is the operator-credential test's below.
  await seedEmbeddedDatabase(dataDir);
  try {
    const process = run({
      HOST: "127.0.0.1",
      PORT: "0",
      AUTH_PORT: "0",
      CONSOLE_PORT: "0",
      GRPC_PORT: "0",
      DATA_DIR: dataDir,
    });
    await process.line("app created");
    process.child.kill("SIGTERM");
    await process.line("stopped");
    assert.is(await process.exited, 0);
    const world = JSON.parse(await readFile(join(dataDir, "demo.json"), "utf8")) as Record<string, unknown>;
    assert.ok(Object.keys(world).length > 0, "demo.json holds the world");
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

/** Polls `condition` every 50 ms until it holds; rejects after `timeoutMs` naming `what`. */
async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether something accepts TCP connections at the URL's port. */
function accepting(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

// The bug `npm run bench:tokens` showed (issue 16): its load generator stops with requests in flight, their
// sockets close, and the front's close did not wait for their handlers. The pool then ended with queries still
// queued for a free connection, and postgres.js opened new connections for them after its end: the process
// never exited. Here the requests wait on a table lock held by the test, so that state is reached every time.
Main(
  "exits 0 after SIGTERM while requests whose clients have gone still wait on PostgreSQL (real PostgreSQL and Redis)",
  async () => {
    const databaseUrl = await freshDatabaseUrl();
    // PGlite takes one connection: nothing else can hold a lock on it, and its pool has no queue to leave behind.
    if (!databaseUrl) skipTest("TEST_DATABASE_URL is not set: PGlite takes one connection, nothing can hold a lock");
    const dataDir = await mkdtemp(join(tmpdir(), "partner-api-main-"));
    // One connection holds the lock; another watches the service's connections (pg_stat_activity of this database).
    const locker = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const observer = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const env = {
        HOST: "127.0.0.1",
        PORT: "0",
        AUTH_PORT: "0",
        CONSOLE_PORT: "0",
        GRPC_PORT: "0",
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        REDIS_URL: process.env["TEST_REDIS_URL"] ?? "",
      };
      const service = run(env, ["--demo"]);
      try {
        const ready = await service.line("partner API ready", 120_000);
        assert.is(ready["sharedLimits"], Boolean(process.env["TEST_REDIS_URL"]));
        const demo = JSON.parse(await readFile(join(dataDir, "demo.json"), "utf8")) as {
          apps: { full: { sandbox: { clientId: string; clientSecret: string } } };
          merchants: { sandbox: Array<{ companyId: number }> };
        };
        const { clientId, clientSecret } = demo.apps.full.sandbox;
        const body = JSON.stringify({
          grant_type: "client_credentials",
          client_id: clientId,
          client_secret: clientSecret,
          merchant_id: demo.merchants.sandbox[0]!.companyId,
        });
        // A mint first: the demo's sandbox credentials work (and are verified, so the revocations below skip that).
        assert.is(
          (
            await fetch(`${ready["front"]}/v1/token`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body,
            })
          ).status,
          200,
        );

        // Revocations of a well-formed refresh token each open a transaction whose first read waits on the test's
        // lock: four times the pool's ten connections of them, ten holding a connection, the rest queued for one.
        const { promise: unlocked, resolve: unlock } = Promise.withResolvers<void>();
        const { promise: lockHeld, resolve: locked } = Promise.withResolvers<void>();
        const transaction = locker.begin(async (tx) => {
          await tx`lock table control.refresh_tokens in access exclusive mode`;
          locked();
          await unlocked;
        });
        // Awaited below; a failure before that ends the locker in `finally`, which must not become an unhandled
        // rejection that ends the file and hides the failure itself.
        transaction.catch(() => {});
        await lockHeld;
        const revocation = new URLSearchParams({
          token: `lp_rt_sb_${"A".repeat(43)}`,
          client_id: clientId,
          client_secret: clientSecret,
        }).toString();
        const requests = Array.from({ length: 40 }, () => {
          const request = http.request(`${ready["front"]}/v1/oauth/revoke`, {
            method: "POST",
            agent: false,
            headers: { "content-type": "application/x-www-form-urlencoded" },
          });
          request.on("error", () => {});
          request.end(revocation);
          return request;
        });
        // Not all ten: the webhook delivery queue (pg-boss, its workers and maintenance) keeps some of the pool's
        // connections; five waiting with the rest of the forty queued is the state the bug needed.
        await until("five of the service's connections wait on the lock", async () => {
          const [row] = await observer<Array<{ waiting: number }>>`
          select count(*)::int as waiting from pg_stat_activity where datname = current_database() and application_name = 'partner-api' and wait_event_type = 'Lock'`;
          return row!.waiting >= 5;
        });

        // The clients go away, the service is told to stop, and the lock goes once the front no longer listens.
        for (const request of requests) request.destroy();
        service.child.kill("SIGTERM");
        await service.line("shutting down: finishing requests in flight");
        await until("the front stops listening", async () => !(await accepting(String(ready["front"]))));
        unlock();
        await transaction;

        const exit = await Promise.race([
          service.exited,
          new Promise<string>((resolve) =>
            setTimeout(() => resolve("still running 60 s after SIGTERM"), 60_000).unref(),
          ),
        ]);
        assert.is(exit, 0, `${service.output().stderr}\n${service.output().stdout.split("\n").slice(-5).join("\n")}`);
        await service.line("stopped");
        assert.not.ok(service.output().stderr.includes("still running after stop"));
      } finally {
        if (service.child.exitCode === null) service.child.kill("SIGKILL");
        await service.exited;
      }
    } finally {
      await Promise.all([locker.end({ timeout: 5 }), observer.end({ timeout: 5 })]);
      await dropDatabase(databaseUrl);
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);

Main("a bad configuration stops the start with a message naming the variable", async () => {
  const process = run({ PORT: "eighty" });
  assert.is(await process.exited, 2);
  assert.match(process.output().stderr, "PORT");
});

Main("NODE_ENV=production without DATABASE_URL stops the start with status 2, naming DATABASE_URL", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-main-"));
  try {
    const process = run({
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: "0",
      AUTH_PORT: "0",
      CONSOLE_PORT: "0",
      GRPC_PORT: "0",
      DATA_DIR: dataDir,
      REDIS_URL: "redis://127.0.0.1:6379",
      TOKEN_KEY_ENCRYPTION_KEY: "a".repeat(64),
      MAIL_TRANSPORT: "smtp://127.0.0.1:25",
    });
    // Before the guard this process started on PGlite and kept running: stop it rather than wait forever.
    const started = process.line("partner API ready").then(
      () => "started",
      () => "no ready line",
    );
    const outcome = await Promise.race([process.exited, started]);
    if (outcome === "started") process.child.kill("SIGKILL");
    assert.is(outcome, 2);
    assert.is(
      process.output().stderr,
      "invalid configuration: DATABASE_URL: required when NODE_ENV=production (the embedded PGlite is for development)\n",
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

Main(
  "a brand-new embedded start makes an operator credential (0600) that buf curl presents; a second start reuses it",
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "partner-api-embedded-"));
    // No DATABASE_URL whatever the mode: this is `npm start` on embedded defaults.
    const env = { HOST: "127.0.0.1", PORT: "0", AUTH_PORT: "0", CONSOLE_PORT: "0", GRPC_PORT: "0", DATA_DIR: dataDir };
    try {
      const first = run(env);
      let credential: string;
      try {
        const ready = await first.line("partner API ready", 90_000);
        assert.is(ready["embeddedDatabase"], true);
        const grpcUrl = String(ready["grpc"]);
        const generated = await first.line(generatedLine);
        assert.is(generated["level"], "warn");
        assert.is(generated["credentialFile"], join(dataDir, "operator-credential"));
        assert.is(generated["credentialsFile"], join(dataDir, "internal-credentials"));
        assert.is(
          generated["try"],
          `buf curl --protocol grpc --http2-prior-knowledge -H "X-Service-Credential: $(cat ${join(dataDir, "operator-credential")})" ${grpcUrl}/partnerapi.v1.TokenService/GetJwks`,
        );
        for (const file of ["operator-credential", "internal-credentials", "staff-credential"]) {
          assert.is((await stat(join(dataDir, file))).mode & 0o777, 0o600, `${file} is readable by its owner only`);
        }
        credential = (await readFile(join(dataDir, "operator-credential"), "utf8")).trim();
        assert.match(credential, /^svc_operator-embedded_[A-Za-z0-9_-]{43}$/);
        assert.not.ok(first.output().stdout.includes(credential.slice(-43)), "the credential is never logged");

        const jwks = await buf([
          "curl",
          "--protocol",
          "grpc",
          "--http2-prior-knowledge",
          "-H",
          `X-Service-Credential: ${credential}`,
          `${grpcUrl}/partnerapi.v1.TokenService/GetJwks`,
        ]);
        assert.is(jwks.code, 0, jwks.stderr);
        const keys = (JSON.parse(jwks.stdout) as { keys: Array<Record<string, unknown>> }).keys;
        assert.is(keys.length, 1);
        assert.is(keys[0]!["kty"], "RSA");
        const anonymous = await buf([
          "curl",
          "--protocol",
          "grpc",
          "--http2-prior-knowledge",
          `${grpcUrl}/partnerapi.v1.TokenService/GetJwks`,
        ]);
        assert.is.not(anonymous.code, 0);
        assert.match(anonymous.stderr, /"code":\s*"unauthenticated"/);
        // The two commands of docs/operations.md that need no credential: the service list (by reflection) and health.
        const services = await buf([
          "curl",
          "--protocol",
          "grpc",
          "--http2-prior-knowledge",
          "--list-services",
          grpcUrl,
        ]);
        assert.is(services.code, 0, services.stderr);
        assert.equal(services.stdout.split("\n").filter(Boolean).sort(), [
          "grpc.health.v1.Health",
          "grpc.reflection.v1.ServerReflection",
          "grpc.reflection.v1alpha.ServerReflection",
          "partnerapi.v1.ConsoleService",
          "partnerapi.v1.CredentialService",
          "partnerapi.v1.DataService",
          "partnerapi.v1.GrantService",
          "partnerapi.v1.TokenService",
        ]);
        const health = await buf([
          "curl",
          "--protocol",
          "grpc",
          "--http2-prior-knowledge",
          "-d",
          '{"service":""}',
          `${grpcUrl}/grpc.health.v1.Health/Check`,
        ]);
        assert.is(health.code, 0, health.stderr);
        assert.equal(JSON.parse(health.stdout), { status: "SERVING" });

        // The demo's staff hint, followed: `npm run credential -- staff staff-local`, its line appended to the
        // credentials file, then the printed buf curl line with the printed credential (issue 18).
        const credentialsPath = join(dataDir, "internal-credentials");
        const hint = [
          "program applications and agreement versions, as the staff a local run has none of (development mode):",
          "  npm run staff -- applications    then    npm run staff -- approve <id>",
          "other staff RPCs (app review; docs/console-walkthrough.md), with a staff credential of your own:",
          "  npm run credential -- staff staff-local",
          `  then append the printed "staff staff-local ..." line to ${credentialsPath} (re-read within 5 seconds)`,
          `  npx buf curl --protocol grpc --http2-prior-knowledge -H 'X-Service-Credential: <the printed credential>' -d '{}' ${grpcUrl}/partnerapi.v1.ConsoleService/ListProgramApplications`,
        ].join("\n");
        assert.ok(first.output().stdout.includes(hint), first.output().stdout);
        const made = await new Promise<string>((resolve, reject) =>
          execFile(
            process.execPath,
            [...sourceLoaderFlags, "src/internal/new-credential.ts", "staff", "staff-local"],
            (error, stdout) => (error ? reject(error) : resolve(stdout)),
          ),
        );
        const [, staffCredential, staffLine] =
          /^ {2}(svc_staff-local_\S+)$[\s\S]*^ {2}(staff staff-local [0-9a-f]{64})$/m.exec(made) ?? [];
        assert.ok(staffCredential && staffLine, made);
        await appendFile(credentialsPath, `${staffLine}\n`);
        const listArgs = [
          "curl",
          "--protocol",
          "grpc",
          "--http2-prior-knowledge",
          "-H",
          `X-Service-Credential: ${staffCredential}`,
          "-d",
          "{}",
          `${grpcUrl}/partnerapi.v1.ConsoleService/ListProgramApplications`,
        ];
        let listed = await buf(listArgs);
        for (let attempt = 0; listed.code !== 0 && attempt < 30; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 1000)); // the file is re-read within 5 seconds
          listed = await buf(listArgs);
        }
        assert.is(listed.code, 0, listed.stderr);
        // The one application is the demo owner's, admitted at provisioning (issue 42): the staff call answers it.
        const { applications } = JSON.parse(listed.stdout) as {
          applications: Array<{ companyName: string; state: string }>;
        };
        assert.equal(
          applications.map(({ companyName, state }) => ({ companyName, state })),
          [{ companyName: "Demo organization", state: "PROGRAM_APPLICATION_STATE_APPROVED" }],
        );
      } finally {
        first.child.kill("SIGTERM");
        await first.exited;
      }

      const credentialsFile = await readFile(join(dataDir, "internal-credentials"), "utf8");
      const second = run(env);
      try {
        const ready = await second.line("partner API ready", 90_000);
        assert.not.ok(second.output().stdout.includes(generatedLine), "nothing generated on a second start");
        assert.is((await readFile(join(dataDir, "operator-credential"), "utf8")).trim(), credential);
        assert.is(await readFile(join(dataDir, "internal-credentials"), "utf8"), credentialsFile);
        const jwks = await buf([
          "curl",
          "--protocol",
          "grpc",
          "--http2-prior-knowledge",
          "-H",
          `X-Service-Credential: ${credential}`,
          `${String(ready["grpc"])}/partnerapi.v1.TokenService/GetJwks`,
        ]);
        assert.is(jwks.code, 0, jwks.stderr);
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);

Main.run();
