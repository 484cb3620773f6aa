// The whole online-order lifecycle across processes, as deployed: a partner places, reads and follows an order at a
// `--role front` process, the merchant's point of sale moves it at the `--role data` process of its region (role
// `pos` on that process's internal port), and the partner's feed at the front shows every move, the app and the
// environment having crossed the region hop. Real processes on real ports, on the wall clock.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient } from "@connectrpc/connect";
import { DataService, OnlineOrderReason } from "../../gen/partnerapi/v1/data_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { readServiceError } from "../../src/errors/index.js";
import { createManualClock, systemClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateControl, migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { createSigningKeyStore, loadKeyEncryptionKey } from "../../src/token/index.js";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { createFixture, testKek, tokenFor } from "../support/gateway.js";
import { grpcTransport, writeInternalCredentials } from "../support/internal.js";
import { startRole } from "../support/role-process.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";

// biome-ignore lint/suspicious/noExplicitAny: the answers are read field by field, as the wire spells them.
type Json = any;

const Roles = suite("gateway/online-orders-roles");

Roles(
  "place at a front process, move at the region's data process as pos, follow every move in the front's feed",
  async () => {
    const root = await mkdtemp(join(tmpdir(), "partner-api-order-roles-"));
    const [frontDir, dataDir] = [join(root, "front"), join(root, "data")];
    const controlUrl = await freshDatabaseUrl();
    const regionUrl = await freshDatabaseUrl();
    const cleanup: Array<() => Promise<unknown>> = [];
    try {
      // Embedded: each process's database starts on a copy of the migrated template, no initdb of its own.
      if (!controlUrl) await seedEmbeddedDatabase(frontDir);
      if (!regionUrl) await seedEmbeddedDatabase(dataDir);
      // The control plane: an ONLINE_ORDER app, a live us merchant, its grant, the signing key. Closed before the front opens it.
      const control = await openDatabase({ url: controlUrl, dataDir: frontDir, logger: silentLogger });
      await migrateControl(control.sql, silentLogger);
      const clock = createManualClock(systemClock.now());
      const fixture = await createFixture(control.sql, () => undefined, clock, {
        product: "ONLINE_ORDER",
        region: "us",
        seed: false,
      });
      const kek = await loadKeyEncryptionKey({ configured: testKek, dataDir: frontDir, logger: silentLogger });
      const keys = createSigningKeyStore({
        sql: control.sql,
        kek,
        clock: systemClock,
        logger: silentLogger,
        accessTokenTtlSeconds: 900,
      });
      await keys.ensure();
      const key = await keys.signingKey();
      await control.close();
      // The us region's database with the merchant's stores and items, before its process opens it.
      const region = await openDatabase({ url: regionUrl, dataDir, logger: silentLogger });
      await migrateRegion(region.sql, "us", silentLogger);
      const [storeId] = await seedMerchantData(region.sql, "us", fixture.companyId, {
        storeCount: 1,
        itemCount: 3,
        salesDays: 0,
        onlineOrderCount: 0,
        now: new Date(),
      });
      const items = await region.sql<
        { id: number; price_minor: number }[]
      >`select id, price_minor from region_us.items where company_id = ${fixture.companyId} order by id`;
      await region.close();

      const credentials = await writeInternalCredentials(root, "accepted-credentials");
      const frontCredential = join(root, "front-credential");
      await writeFile(frontCredential, credentials.front + "\n", { mode: 0o600 });
      const data = startRole(["--role", "data", "--region", "us"], {
        HOST: "127.0.0.1",
        GRPC_PORT: "0",
        REGION_GRPC_PORT: "0",
        DATA_DIR: dataDir,
        DATABASE_URL: regionUrl ?? "",
        GRPC_CREDENTIALS_FILE: credentials.file,
        SANDBOX_ORDER_AUTOPILOT_SECONDS: "0",
        LOG_LEVEL: "info",
      });
      cleanup.push(() => data.stop(20_000));
      const dataReady = await data.line("data service ready");
      const front = startRole(["--role", "front"], {
        HOST: "127.0.0.1",
        PORT: "0",
        AUTH_PORT: "0",
        CONSOLE_PORT: "0",
        GRPC_PORT: "0",
        DATA_DIR: frontDir,
        DATABASE_URL: controlUrl ?? "",
        TOKEN_KEY_ENCRYPTION_KEY: testKek,
        LOG_LEVEL: "info",
        REGIONS: "us",
        REGION_GRPC_URL_US: String(dataReady["regionGrpc"]),
        REGION_GRPC_CREDENTIAL_FILE: frontCredential,
      });
      cleanup.push(() => front.stop(20_000));
      const base = String((await front.line("partner API ready"))["front"]);
      const token = tokenFor(
        key,
        loadConfig({ HOST: "127.0.0.1", PORT: "0" }),
        createManualClock(systemClock.now()),
        fixture,
      );
      const partner = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Json };
      };
      const pos = createClient(
        DataService,
        grpcTransport(Number(new URL(String(dataReady["grpc"])).port), credentials.pos),
      );
      const ids = (order: Json) => ({ companyId: BigInt(fixture.companyId), id: BigInt(order.id) });

      // The partner places at the front; the data process prices it from its catalogue (USD: the us region).
      const start = new Date(Date.now() - 1_000).toISOString();
      const placed = await partner("POST", "/v1/online-orders", {
        storeId,
        lines: [{ itemId: Number(items[0]!.id), quantity: 3 }],
        fulfilment: {
          type: "DELIVERY",
          deliveryAddress: { line1: "1 Main St", city: "Springfield", postcode: "12345" },
        },
        customer: { name: "Pat", phone: "+1 555 0100" },
        externalReference: "roles-1",
      });
      assert.is(placed.status, 200, JSON.stringify(placed.body));
      const order = placed.body.order;
      assert.equal(
        [order.status, order.currency, order.totalMinor],
        ["PENDING", "USD", Number(items[0]!.price_minor) * 3],
      );

      // The point of sale moves it on the data process; the front's reads show each move.
      assert.is(
        (await pos.acceptOnlineOrder({ ...ids(order), promisedFor: "2030-01-01T12:00:00Z" })).order?.status,
        "ACCEPTED",
      );
      assert.is((await partner("GET", `/v1/online-orders/${order.id}`)).body.order.status, "ACCEPTED");
      const cancel = await partner("POST", `/v1/online-orders/${order.id}/cancel`, {});
      assert.equal(
        [cancel.status, cancel.body.code, cancel.body.params],
        [409, "partner.order_status_conflict", { status: "ACCEPTED", target: "CANCELLED" }],
      );
      await pos.markOnlineOrderReady(ids(order));
      await pos.completeOnlineOrder(ids(order));
      const feed = await partner("GET", `/v1/online-orders?updatedFrom=${encodeURIComponent(start)}`);
      assert.equal(
        feed.body.orders.map((row: Json) => [row.id, row.status, row.promisedFor]),
        [[order.id, "COMPLETED", "2030-01-01T12:00:00.000Z"]],
      );
      assert.type(feed.body.nextCursor, "string");

      // A second order: the partner cancels its own (the app crossed the hop), and the history names who did what.
      const second = (
        await partner("POST", "/v1/online-orders", {
          storeId,
          lines: [{ itemId: Number(items[1]!.id), quantity: 1 }],
          fulfilment: { type: "PICKUP" },
          customer: { name: "Sam" },
          externalReference: "roles-2",
        })
      ).body.order;
      const cancelled = await partner("POST", `/v1/online-orders/${second.id}/cancel`, {});
      assert.equal([cancelled.status, cancelled.body.order.status], [200, "CANCELLED"]);
      const later = await partner("GET", `/v1/online-orders?cursor=${feed.body.nextCursor}`);
      assert.equal(
        later.body.orders.map((row: Json) => [row.id, row.status]),
        [[second.id, "CANCELLED"]],
      );
      const { events } = await pos.listOnlineOrderEvents(ids(order));
      assert.equal(
        events.map((event) => [event.fromStatus, event.toStatus, event.actor]),
        [
          ["", "PENDING", `app:${fixture.appId}`],
          ["PENDING", "ACCEPTED", "pos"],
          ["ACCEPTED", "READY", "pos"],
          ["READY", "COMPLETED", "pos"],
        ],
      );
      // A production token cannot use the sandbox helper, at the front or across the hop.
      const helper = await partner("POST", `/v1/sandbox/online-orders/${second.id}/status`, { status: "ACCEPTED" });
      assert.equal([helper.status, helper.body.code], [403, "partner.env_mismatch"]);
      // The front's own credential cannot make the merchant's moves at the data process.
      const asFront = await createClient(
        DataService,
        grpcTransport(Number(new URL(String(dataReady["grpc"])).port), credentials.front),
      )
        .rejectOnlineOrder({ ...ids(second), reason: OnlineOrderReason.OTHER })
        .then(
          () => "accepted",
          (error: unknown) => readServiceError(error).code,
        );
      assert.is(asFront, "internal.permission_denied");
    } finally {
      for (const step of cleanup.reverse()) await step();
      for (const url of [controlUrl, regionUrl]) if (url) await dropDatabase(url);
      await rm(root, { recursive: true, force: true });
    }
  },
);

Roles.run();
