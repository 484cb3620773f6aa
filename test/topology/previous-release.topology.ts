// Expand-then-contract across one release (issue 37, docs/versioning.md): the previous release keeps serving while
// the new one runs on the schema the new one migrated. The previous release is the code just before the newest
// commit that changed src/storage/migrations (that commit's first parent, on main's first-parent history): the last
// code that ran on the schema before the newest migration. Its tree comes from `git archive` into a temporary
// directory (its node_modules: this tree's when the lockfiles are the same, else `npm ci`, bounded); then the whole
// program of this tree starts on a fresh database and migrates it, the previous release starts on the same database
// beside it (and logs that the database has migrations it does not know), and partner calls alternate between the
// two: tokens minted by either work on both, writes made through either read back through the other, its probes,
// its consent site and its internal port answer. Skipped, with the reason, where it cannot run (not a git checkout,
// no such commit, the previous tree cannot be installed); never passed then. Run with `npm run test:topology`.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createClient } from "@connectrpc/connect";
import * as assert from "uvu/assert";
import { CredentialService, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { testKek } from "../support/gateway.js";
import { grpcTransport, writeInternalCredentials, type InternalCredentials } from "../support/internal.js";
import { startRole, type RoleProcess } from "../support/role-process.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import { skipTest, suite } from "../support/suite.js";

process.env["TEST_DATABASE_URL"] ??= "postgres://postgres@127.0.0.1:5432/postgres";

const run = promisify(execFile);
const repository = join(import.meta.dirname, "..", "..");
const Previous = suite("topology/previous-release", undefined, { timeoutMs: 900_000 });

interface Instance {
  process: RoleProcess;
  front: string;
  consent: string;
  grpcPort: number;
}

let dir: string | undefined;
let databaseUrl: string | undefined;
const started: RoleProcess[] = [];

Previous.after(async () => {
  await Promise.all(started.map((role) => role.stop(20_000)));
  if (databaseUrl) await dropDatabase(databaseUrl);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The previous release's commit, or why there is none here. */
async function previousRelease(): Promise<{ commit: string; migrationCommit: string } | string> {
  const git = (...args: string[]) => run("git", ["-C", repository, ...args], { timeout: 30_000 });
  try {
    await git("rev-parse", "--git-dir");
  } catch {
    return "not a git checkout: no earlier release to start";
  }
  const { stdout } = await git("log", "--first-parent", "-1", "--format=%H", "HEAD", "--", "src/storage/migrations");
  const migrationCommit = stdout.trim();
  if (!migrationCommit) return "no commit changed src/storage/migrations";
  try {
    const parent = await git("rev-parse", "--verify", `${migrationCommit}^1`);
    return { commit: parent.stdout.trim(), migrationCommit };
  } catch {
    return `${migrationCommit} has no parent in this clone (a shallow clone: fetch more history)`;
  }
}

/** The previous release's tree in `target`, with its dependencies installed; why not, when it cannot be. */
async function checkOut(commit: string, target: string): Promise<string | undefined> {
  await mkdir(target, { recursive: true });
  try {
    await run("sh", ["-c", `git -C "${repository}" archive "${commit}" | tar -x -C "${target}"`], { timeout: 120_000 });
  } catch (error) {
    return `git archive of ${commit} failed: ${(error as Error).message}`;
  }
  if (!existsSync(join(target, "gen"))) return `${commit} has no committed gen/ (it would need buf generate)`;
  const lock = (tree: string) => readFileSync(join(tree, "package-lock.json"), "utf8");
  if (lock(target) === lock(repository)) {
    // The same dependencies to the byte: this tree's installed ones serve (what npm ci would lay down).
    symlinkSync(join(repository, "node_modules"), join(target, "node_modules"));
    return undefined;
  }
  try {
    await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: target, timeout: 600_000 });
    return undefined;
  } catch (error) {
    return `npm ci of ${commit} failed or took over 10 minutes: ${(error as Error).message.slice(0, 300)}`;
  }
}

/** The whole program (all roles) from `cwd` on the shared database; its addresses once ready. */
async function startInstance(name: string, cwd: string, credentials: InternalCredentials): Promise<Instance> {
  const role = startRole(
    [],
    {
      HOST: "127.0.0.1",
      PORT: "0",
      AUTH_PORT: "0",
      CONSOLE_PORT: "0",
      GRPC_PORT: "0",
      GRPC_CREDENTIALS_FILE: credentials.file,
      DATA_DIR: join(dir!, `data-${name}`),
      DATABASE_URL: databaseUrl!,
      TOKEN_KEY_ENCRYPTION_KEY: testKek,
      PARTNER_RATE_LIMIT: "100000",
      LOG_LEVEL: "info",
    },
    { cwd },
  );
  started.push(role);
  const ready = await role.line("partner API ready", 300_000);
  return {
    process: role,
    front: String(ready["front"]),
    consent: String(ready["consent"]),
    grpcPort: Number(new URL(String(ready["grpc"])).port),
  };
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}

async function mint(instance: Instance, client: { id: string; secret: string }): Promise<string> {
  const answer = await fetch(`${instance.front}/v1/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grant_type: "client_credentials", client_id: client.id, client_secret: client.secret }),
  });
  const body = await json(answer);
  assert.is(answer.status, 200, `mint on ${instance.front}: ${JSON.stringify(body)}`);
  return body["access_token"] as string;
}

const partner = (instance: Instance, token: string, path: string, body?: unknown) =>
  fetch(`${instance.front}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

Previous(
  "the previous release keeps serving its routes on the schema the current release migrated, beside it",
  async () => {
    const previous = await previousRelease();
    if (typeof previous === "string") skipTest(previous);
    databaseUrl = await freshDatabaseUrl();
    if (!databaseUrl) skipTest("no PostgreSQL (TEST_DATABASE_URL) to share between the releases");
    dir = await mkdtemp(join(tmpdir(), "pa-previous-release-"));
    const tree = join(dir, "tree");
    const why = await checkOut(previous.commit, tree);
    if (why) skipTest(why);
    console.log(
      `  previous release: ${previous.commit.slice(0, 12)} (before ${previous.migrationCommit.slice(0, 12)})`,
    );

    const credentials = await writeInternalCredentials(dir, "accepted-credentials");
    const current = await startInstance("current", repository, credentials);
    const old = await startInstance("previous", tree, credentials);
    // It runs on a schema newer than its own, and says so (a rolling deploy's expected state, not an error).
    const unknown = await old.process.line("database has migrations this build does not know", 10_000);
    console.log(`  migrations the previous release does not know: ${JSON.stringify(unknown["unknown"])}`);

    // An organization, a sandbox merchant (seeded in its region) and an app, through the previous release's
    // internal port.
    const operator = createClient(CredentialService, grpcTransport(old.grpcPort, credentials.operator));
    const { organization } = await operator.createOrganization({ name: "Previous release org" });
    const { merchant } = await operator.provisionSandboxMerchant({
      organizationId: organization!.organizationId!,
      country: "GB",
      name: "Previous release shop",
    });
    const created = await operator.createApp({
      organizationId: organization!.organizationId!,
      name: "Previous release app",
      product: Product.FULL,
    });
    const client = { id: created.sandbox!.clientId!, secret: created.sandbox!.clientSecret! };
    assert.ok(merchant?.companyId, "a sandbox merchant");

    for (const instance of [old, current]) {
      const ready = await fetch(`${instance.front}/readyz`);
      assert.is(ready.status, 200, `${instance.front}/readyz: ${await ready.text()}`);
      const signIn = await fetch(
        `${instance.consent}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: client.id, redirect_uri: "https://app.example/callback", state: "s" })}`,
      );
      // The app has no redirect URI registered: both releases refuse it the same way, on their own page.
      assert.is(signIn.status, 400, await signIn.text());
    }

    // Rounds alternating the releases: a token minted on one is accepted by the other; an item written through one
    // reads back through the other, and each reads back through both at the end.
    const written = new Map<string, string>();
    for (let round = 0; round < 6; round++) {
      const [writer, reader] = round % 2 === 0 ? [old, current] : [current, old];
      const token = await mint(writer, client);
      const code = `prev-${round}`;
      const posted = await partner(reader, token, "/v1/items", { name: `Round ${round}`, code, priceMinor: 250 });
      const item = (await json(posted))["item"] as { id: string; code: string } | undefined;
      assert.is(posted.status, 200, `${reader.front} POST /v1/items: ${JSON.stringify(item)}`);
      assert.is(item!.code, code);
      written.set(code, item!.id);
      const read = await partner(writer, token, `/v1/items/${item!.id}`);
      const body = await json(read);
      assert.is(read.status, 200, `${writer.front} GET /v1/items/${item!.id}: ${JSON.stringify(body)}`);
      assert.is((body["item"] as { code: string }).code, code);
      const stores = await partner(writer, token, "/v1/stores");
      assert.is(stores.status, 200, `${writer.front} GET /v1/stores: ${await stores.text()}`);
    }
    // Every item written in the rounds reads back through both releases.
    for (const instance of [old, current]) {
      const token = await mint(instance, client);
      for (const [code, id] of written) {
        const read = await partner(instance, token, `/v1/items/${id}`);
        const body = await json(read);
        assert.is(read.status, 200, `${instance.front} GET /v1/items/${id}: ${JSON.stringify(body)}`);
        assert.is((body["item"] as { code: string }).code, code);
      }
    }
    assert.is(old.process.child.exitCode, null, "the previous release is still running");
  },
);

Previous.run();
