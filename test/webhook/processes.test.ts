// Webhooks across real processes: an event committed by a process killed with SIGKILL right after the commit is
// delivered once a worker is back (the outbox survives the process), and several `--role worker` processes share
// the work without sending any attempt twice (PostgreSQL: the embedded PGlite belongs to one process at a time).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { CredentialService, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { createCredentialService } from "../../src/credential/index.js";
import { recordEvent } from "../../src/events/index.js";
import { createSandboxGrants } from "../../src/grant/index.js";
import { systemClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { createInProcessClient } from "../../src/runtime/service-caller.js";
import { migrateControl } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { startRole, type RoleProcess } from "../support/role-process.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import { freePort } from "../support/test-app.js";
import { startReceiver } from "../support/webhook-receiver.js";

const test = suite("webhook processes");

test("SIGKILL right after the commit: the event is delivered once a worker is back; several workers never send an attempt twice", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "pa-webhooks-"));
  const databaseUrl = await freshDatabaseUrl();
  const receiver = await startReceiver();
  const running: RoleProcess[] = [];
  try {
    // The world, written before any process holds the database (embedded: on a copy of the migrated template, no
    // initdb of its own).
    if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
    const database = await openDatabase({ url: databaseUrl, dataDir, logger: silentLogger });
    await migrateControl(database.sql, silentLogger);
    const credentials = createInProcessClient(
      CredentialService,
      createCredentialService(
        { config: loadConfig({ DATA_DIR: dataDir }), clock: systemClock, ids: cryptoIds, logger: silentLogger },
        { sql: database.sql, regionSql: () => undefined, sandboxGrants: createSandboxGrants() },
      ),
    );
    const { organization } = await credentials.createOrganization({ name: `webhooks ${process.pid}` });
    const app = await credentials.createApp({
      organizationId: organization!.organizationId,
      name: "Receiver app",
      product: Product.FULL,
    });
    await database.close();
    const pair = app.sandbox!;
    const basic = `Basic ${Buffer.from(`${pair.clientId}:${pair.clientSecret}`).toString("base64")}`;
    const env = async () => ({
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      AUTH_PORT: String(await freePort()),
      CONSOLE_PORT: String(await freePort()),
      GRPC_PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? "",
      WEBHOOK_ALLOW_LOOPBACK: "1",
      // A machine running other suites beside this one (load 30 on two cores) connects slowly.
      DATABASE_CONNECT_TIMEOUT_SECONDS: "30",
      LOG_LEVEL: "info",
    });

    // A front (no delivery in it) commits a webhook.test event, and is killed at once.
    const frontEnv = await env();
    const front = startRole(["--role", "front"], frontEnv);
    running.push(front);
    await front.line("partner API ready", 300_000);
    const base = `http://127.0.0.1:${frontEnv.PORT}`;
    const created = await fetch(`${base}/v1/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url }),
    });
    assert.is(created.status, 200);
    const { endpoint, secret } = (await created.json()) as { endpoint: { id: string }; secret: string };
    receiver.secrets.push(secret);
    const sent = await fetch(`${base}/v1/webhook-endpoints/${endpoint.id}/test`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/json" },
      body: "{}",
    });
    assert.is(sent.status, 200);
    const { eventId } = (await sent.json()) as { eventId: string };
    front.child.kill("SIGKILL");
    await front.exited;

    // A worker comes up on the same database and delivers it, once.
    const worker = startRole(["--role", "worker"], await env());
    running.push(worker);
    await worker.line("webhook worker ready", 300_000);
    const [delivered] = await receiver.waitFor(1, 60_000);
    assert.is(delivered!.headers["webhook-id"], eventId);
    assert.is(delivered!.verified?.type, "webhook.test");

    if (databaseUrl) {
      // Two more workers on the same PostgreSQL; sixty events committed at once are each sent exactly once.
      for (let i = 0; i < 2; i++) {
        const another = startRole(["--role", "worker"], await env());
        running.push(another);
        await another.line("webhook worker ready", 300_000);
      }
      const shared = await openDatabase({ url: databaseUrl, dataDir, logger: silentLogger });
      const ids = await shared.sql.begin(async (tx) => {
        const made: string[] = [];
        for (let i = 0; i < 60; i++)
          made.push(
            await recordEvent(tx, {
              type: "webhook.test",
              audience: { kind: "endpoint", endpointId: endpoint.id },
              data: { i },
              occurredAt: new Date(),
            }),
          );
        return made;
      });
      await shared.close();
      await receiver.waitFor(61, 60_000);
      for (const process of running.slice(1)) await process.stop(20_000);
      const seen = receiver.received.map((request) => request.headers["webhook-id"]);
      assert.is(seen.length, 61);
      assert.equal(new Set(seen).size, 61);
      assert.ok(ids.every((id) => seen.includes(id)));
      assert.ok(receiver.received.every((request) => request.verified !== undefined));
    } else {
      await worker.stop(20_000);
      assert.is(receiver.received.length, 1);
    }
  } finally {
    for (const process of running) await process.stop(5_000);
    await receiver.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
    await rm(dataDir, { recursive: true, force: true });
  }
});

test.run();
