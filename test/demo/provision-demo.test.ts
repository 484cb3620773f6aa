// The demo world: the exact keys of demo.json, idempotence, business data in the live merchants' regions, and no
// secret of it in any table or log line.
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { loadConfig } from "../../src/config/config.js";
import {
  demoFilePath,
  demoRedirectUri,
  describeDemo,
  provisionDemo,
  refreshDemoUrls,
  type ProvisionDemoOptions,
} from "../../src/demo/provision-demo.js";
import { createLogger } from "../../src/runtime/logger.js";
import { regions } from "../../src/config/regions.js";
import { regionSchema } from "../../src/storage/schemas.js";
import { useTestDatabase } from "../support/storage.js";
import { createCredentialOwner } from "../../src/credential/index.js";
import { createSandboxGrants } from "../../src/grant/index.js";
import { readServiceError } from "../../src/errors/index.js";
import { systemClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";

const Demo = suite("demo/provision-demo");
const database = useTestDatabase(Demo);
const logLines: string[] = [];
let dataDir = "";

Demo.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pa-demo-"));
});
Demo.after(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function options(): ProvisionDemoOptions {
  const { sql } = database();
  return {
    config: loadConfig({ DATA_DIR: dataDir }),
    logger: createLogger({ level: "debug", write: (line) => logLines.push(line) }),
    control: sql,
    regionDatabases: new Map(regions.map((region) => [region, { sql }])),
  };
}

const keys = (value: object) => Object.keys(value).sort();

Demo("writes demo.json with exactly the contract's keys, and a second run returns the same world", async () => {
  const world = await provisionDemo(options());
  const path = demoFilePath(options().config);
  const written = JSON.parse(await readFile(path, "utf8"));
  assert.equal(written, world);
  assert.is((await stat(path)).mode & 0o777, 0o600);
  assert.equal(keys(world), [
    "apps",
    "authUrl",
    "baseUrl",
    "console",
    "grpcUrl",
    "merchants",
    "organizationId",
    "redirectUri",
  ]);
  assert.equal(keys(world.console), ["email", "password"]);
  assert.is(world.console.email, `owner.${world.organizationId}@demo-console.partner-api.test`);
  assert.match(world.console.password, /^[A-Za-z0-9_-]{24}$/);
  assert.is(world.baseUrl, "http://127.0.0.1:8080/");
  assert.is(world.authUrl, "http://127.0.0.1:8081");
  assert.is(world.grpcUrl, "http://127.0.0.1:8090");
  assert.is(world.redirectUri, demoRedirectUri);
  assert.equal(keys(world.apps), ["adsr", "full", "inReview", "onlineOrder"]);
  for (const app of [world.apps.full, world.apps.onlineOrder]) {
    assert.equal(keys(app), ["appId", "production", "sandbox"]);
    assert.match(app.sandbox.clientId, /^lp_app_sb/);
    assert.match(app.sandbox.clientSecret, /^lp_sk_sb_/);
    assert.match(app.production.clientId, /^lp_app_pk/);
    assert.match(app.production.clientSecret, /^lp_sk_pk_/);
  }
  assert.equal(keys(world.apps.adsr.sandbox), ["apiKey", "clientId", "clientSecret"]);
  assert.match(world.apps.adsr.sandbox.apiKey, /^lp_ak_sb_/);
  assert.match(world.apps.adsr.production.apiKey, /^lp_ak_pk_/);
  assert.equal(keys(world.apps.inReview), ["appId", "product", "sandbox"]);
  assert.is(world.apps.inReview.product, "FULL");
  assert.is(world.merchants.sandbox.length, 2);
  for (const merchant of world.merchants.sandbox) assert.equal(keys(merchant), ["companyId", "owner", "region"]);
  assert.equal(
    world.merchants.sandbox.map((m) => m.region),
    ["uk", "us"],
  );
  assert.equal(
    world.merchants.live.map((m) => m.region),
    ["us", "in"],
  );
  for (const merchant of world.merchants.live) {
    assert.equal(keys(merchant), ["companyId", "employee", "owner", "region", "storeIds"]);
    assert.equal(keys(merchant.owner), ["email", "password"]);
    assert.is(merchant.storeIds.length, 2);
  }
  const described = describeDemo(world, path, { credentialsFile: "/data/internal-credentials" });
  assert.match(described, `merchant_id=${world.merchants.sandbox[0]!.companyId}`);
  // Each secret the printed calls leave out is named by its JSON path in demo.json (the file holds nine secrets).
  const placeholders = [...described.matchAll(/<([^<>]+) from demo\.json>/g)].map((match) => match[1]!);
  assert.equal(placeholders, ["apps.full.sandbox.clientSecret", "apps.adsr.production.apiKey"]);
  const at = (path: string) =>
    path.split(".").reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], world);
  assert.is(at("apps.full.sandbox.clientSecret"), world.apps.full.sandbox.clientSecret);
  assert.match(
    described,
    `client_id=${world.apps.full.sandbox.clientId} -d client_secret=<apps.full.sandbox.clientSecret from demo.json>`,
  );
  assert.match(at("apps.adsr.production.apiKey") as string, /^lp_ak_pk_/);
  assert.ok(
    described.endsWith(
      [
        "program applications and agreement versions, as the staff a local run has none of (development mode):",
        "  npm run staff -- applications    then    npm run staff -- approve <id>",
        "other staff RPCs (app review; docs/console-walkthrough.md), with a staff credential of your own:",
        "  npm run credential -- staff staff-local",
        '  then append the printed "staff staff-local ..." line to /data/internal-credentials (re-read within 5 seconds)',
        "  npx buf curl --protocol grpc --http2-prior-knowledge -H 'X-Service-Credential: <the printed credential>' -d '{}' http://127.0.0.1:8090/partnerapi.v1.ConsoleService/ListProgramApplications",
      ].join("\n"),
    ),
    described,
  );

  const again = await provisionDemo(options());
  assert.equal(again, world);
  const [count] = await database()
    .sql`select count(*)::int as count from control.organizations where id >= ${world.organizationId}`;
  assert.ok(count!.count >= 1);
  const apps = await database()
    .sql`select id, state, product from control.apps where organization_id = ${world.organizationId} order by id`;
  assert.is(apps.length, 4, "the second run made nothing new");
  assert.equal(apps.map((app) => app.state).sort(), ["APPROVED", "APPROVED", "APPROVED", "IN_REVIEW"]);
});

Demo(
  "a start without --demo makes demo.json name its own URLs (the example app follows the real ports); nothing else changes",
  async () => {
    const path = demoFilePath(options().config);
    const before = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    const moved = loadConfig({ DATA_DIR: dataDir, PORT: "18080", AUTH_PORT: "18081", GRPC_PORT: "18090" });
    assert.is(await refreshDemoUrls(moved), true);
    const after = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    assert.equal(after, {
      ...before,
      baseUrl: "http://127.0.0.1:18080/",
      authUrl: "http://127.0.0.1:18081",
      grpcUrl: "http://127.0.0.1:18090",
    });
    assert.is(await refreshDemoUrls(moved), false, "unchanged URLs: the file is left alone");
    assert.is(await refreshDemoUrls(loadConfig({ DATA_DIR: join(dataDir, "no-demo-here") })), false);
    assert.is(await refreshDemoUrls(options().config), true);
    assert.equal(JSON.parse(await readFile(path, "utf8")), before);
  },
);

Demo(
  "live merchants have stores, a few hundred items, online orders and ninety days of sales in their regions",
  async () => {
    const world = await provisionDemo(options());
    const { sql } = database();
    for (const merchant of world.merchants.live) {
      const schema = regionSchema(merchant.region);
      const [items] =
        await sql`select count(*)::int as count from ${sql(`${schema}.items`)} where company_id = ${merchant.companyId}`;
      const [orders] =
        await sql`select count(*)::int as count from ${sql(`${schema}.online_orders`)} where company_id = ${merchant.companyId}`;
      const [days] = await sql`
      select count(distinct date_trunc('day', sold_at))::int as count from ${sql(`${schema}.sales`)} where company_id = ${merchant.companyId}`;
      assert.ok(items!.count >= 200, `items ${items!.count}`);
      assert.ok(orders!.count > 0);
      assert.ok(days!.count >= 89, `days ${days!.count}`);
      const [row] =
        await sql`select demo, active, provisioned, region from control.merchants where company_id = ${merchant.companyId}`;
      assert.equal(row, { demo: false, active: true, provisioned: true, region: merchant.region });
    }
    for (const merchant of world.merchants.sandbox) {
      const [row] =
        await sql`select demo, provisioned, sandbox_organization_id from control.merchants where company_id = ${merchant.companyId}`;
      assert.equal(row, { demo: true, provisioned: true, sandbox_organization_id: world.organizationId });
    }
  },
);

Demo(
  "sandbox merchants are seeded as richly as the live ones: two stores, 300 items, orders in five states, 90 days of sales",
  async () => {
    const world = await provisionDemo(options());
    const { sql } = database();
    const profile = async (merchant: { companyId: number; region: (typeof regions)[number] }) => {
      const schema = regionSchema(merchant.region);
      const [stores] =
        await sql`select count(*)::int as count from ${sql(`${schema}.stores`)} where company_id = ${merchant.companyId}`;
      const [items] =
        await sql`select count(*)::int as count from ${sql(`${schema}.items`)} where company_id = ${merchant.companyId}`;
      const states = await sql<{ status: string; count: number }[]>`
      select status, count(*)::int as count from ${sql(`${schema}.online_orders`)} where company_id = ${merchant.companyId}
      group by status order by status`;
      const [days] = await sql`
      select count(distinct date_trunc('day', sold_at))::int as count from ${sql(`${schema}.sales`)} where company_id = ${merchant.companyId}`;
      return {
        stores: stores!.count,
        items: items!.count,
        states: states.map((row) => [row.status, row.count]),
        days: days!.count >= 89,
      };
    };
    const expected = {
      stores: 2,
      items: 300,
      states: [
        ["ACCEPTED", 12],
        ["CANCELLED", 12],
        ["COMPLETED", 12],
        ["PENDING", 12],
        ["READY", 12],
      ],
      days: true,
    };
    for (const merchant of [...world.merchants.sandbox, ...world.merchants.live])
      assert.equal(await profile(merchant), expected, `merchant ${merchant.companyId}`);
  },
);

Demo(
  "the console owner: a verified OWNER of the demo organization, its password only hashed; a demo.json without it (written before) gets one, a lost one a new password",
  async () => {
    const world = await provisionDemo(options());
    const { sql } = database();
    const [account] = await sql`
      select a.password_hash, a.verified_at is not null as verified, m.role from control.developer_accounts a
      join control.organization_members m on m.account_id = a.id
      where a.email = ${world.console.email} and m.organization_id = ${world.organizationId}`;
    assert.is(account!["verified"], true);
    assert.is(account!["role"], "OWNER");
    assert.match(String(account!["password_hash"]), /^scrypt\$/);
    const path = demoFilePath(options().config);
    const { console: _login, ...before } = JSON.parse(await readFile(path, "utf8")) as typeof world;
    await writeFile(path, JSON.stringify(before));
    const again = await provisionDemo(options());
    assert.equal({ ...again, console: undefined }, { ...world, console: undefined }, "nothing else changes");
    assert.is(again.console.email, world.console.email);
    assert.is.not(again.console.password, world.console.password, "the lost password is replaced, never recovered");
    const [hash] = await sql`select password_hash from control.developer_accounts where email = ${world.console.email}`;
    assert.is.not(hash!["password_hash"], account!["password_hash"]);
    assert.equal(await provisionDemo(options()), again, "a working login is kept");
  },
);

Demo(
  "the console owner is admitted to the program: one APPROVED application, the active agreement signed (the demo's when none was published); a later run signs a newer one and adds nothing else",
  async () => {
    const { sql } = database();
    const world = await provisionDemo(options());
    const standing = async () =>
      sql`
        select p.state, (select count(*)::int from control.program_applications q where q.account_id = a.id) as applications,
          (select max(version) from control.agreement_signatures s where s.account_id = a.id) as signed,
          (select max(version) from control.agreement_versions) as active
        from control.developer_accounts a join control.program_applications p on p.account_id = a.id
        where a.email = ${world.console.email}`;
    const [first] = await standing();
    assert.equal(
      { ...first },
      { state: "APPROVED", applications: 1, signed: first!["active"], active: first!["active"] },
    );
    const [agreement] = await sql`select title, url from control.agreement_versions order by version desc limit 1`;
    assert.ok(agreement, "an agreement is published");
    await sql`insert into control.agreement_versions (version, title, url, published_at)
      select max(version) + 1, 'Developer agreement v2', 'https://partner.test/agreement/v2', now() from control.agreement_versions`;
    await provisionDemo(options());
    const [second] = await standing();
    assert.equal(
      { ...second },
      { state: "APPROVED", applications: 1, signed: first!["active"] + 1, active: first!["active"] + 1 },
    );
  },
);

Demo(
  "the demo's secrets count as shown (to demo.json): a production reveal is refused and the file's secret keeps working; a world written before gets the record",
  async () => {
    const world = await provisionDemo(options());
    const { sql } = database();
    const { credentials } = createCredentialOwner(
      { config: options().config, logger: options().logger, clock: systemClock, ids: cryptoIds },
      { sql, regionSql: () => sql, sandboxGrants: createSandboxGrants() },
    );
    for (const app of [world.apps.full, world.apps.onlineOrder, world.apps.adsr]) {
      const described = await credentials.getApp(app.appId);
      for (const client of described.credentials) assert.is(client.secretShown?.to, "demo.json", client.clientId);
      await credentials.revealProductionSecret(app.appId, "owner@partner.test").then(
        () => assert.unreachable("a reveal replaced the production secret demo.json holds"),
        (error: unknown) => assert.is(readServiceError(error).code, "developer.production_credentials_already_shown"),
      );
      const verified = await credentials.verifyClientCredentials(app.production.clientId, app.production.clientSecret);
      assert.is(verified.clientId, app.production.clientId);
    }
    // A world provisioned before the record existed: the second run records it (and a first record is kept).
    await sql`update control.client_credentials set secret_shown_at = null, secret_shown_to = null`;
    await provisionDemo(options());
    const [unrecorded] = await sql`
      select count(*)::int as count from control.client_credentials c join control.apps a on a.id = c.app_id
      where a.organization_id = ${world.organizationId} and c.secret_shown_to is distinct from 'demo.json'`;
    assert.is(unrecorded!["count"], 0);
  },
);

Demo("no secret, key or password of the demo is in any table or any log line", async () => {
  const world = await provisionDemo(options());
  const { sql } = database();
  const secrets = [
    ...[world.apps.full, world.apps.onlineOrder, world.apps.adsr].flatMap((app) => [
      app.sandbox.clientSecret,
      app.production.clientSecret,
    ]),
    world.apps.inReview.sandbox.clientSecret,
    world.apps.adsr.sandbox.apiKey,
    world.apps.adsr.production.apiKey,
    ...world.merchants.sandbox.map((m) => m.owner.password),
    ...world.merchants.live.flatMap((m) => [m.owner.password, m.employee.password]),
    world.console.password,
  ];
  const needles = [...secrets, ...secrets.map((secret) => secret.slice(-24))];
  const tables = await sql<{ table_schema: string; table_name: string }[]>`
    select table_schema, table_name from information_schema.tables
    where (table_schema = 'control' or table_schema like 'region\\_%') and table_type = 'BASE TABLE'`;
  let dump = "";
  for (const table of tables) {
    const rows = await sql`select t::text as row from ${sql(`${table.table_schema}.${table.table_name}`)} t`;
    dump += rows.map((row) => row.row).join("\n") + "\n";
  }
  assert.ok(dump.includes(world.apps.full.sandbox.clientId));
  const log = logLines.join("\n");
  assert.ok(log.includes("demo world"));
  for (const needle of needles) {
    assert.not.ok(dump.includes(needle), "a demo secret is stored in clear");
    assert.not.ok(log.includes(needle), "a demo secret is logged");
  }
});

Demo.run();
