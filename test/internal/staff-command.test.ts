// `npm run staff`: the command, run as a child process against a started app's internal port (its real port), with
// the staff credential the app keeps in DATA_DIR in development mode: it lists the waiting applications, approves
// one (the developer's account says so), refuses a second decision in words, and publishes an agreement version.
import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { suite } from "../support/suite.js";
import { sourceLoaderFlags } from "../support/role-process.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { staffCredentialPath } from "../../src/internal/service-credentials.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { consoleCall, mailedLink, tokenOf } from "../support/console.js";
import { randomAddress } from "../support/consent.js";

const Staff = suite("internal/staff-command");
const run = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const clock = createManualClock(Date.parse("2026-03-02T10:00:00Z"));
let test: TestApp;

Staff.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
});
Staff.after(async () => {
  await test.stop();
});

/** `npm run staff -- ...args` as the sources (loaded as the tests are), in the app's environment: its DATA_DIR and internal port. */
async function staff(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env["PATH"] ?? "",
    DATA_DIR: test.config.dataDir,
    GRPC_HOST: "127.0.0.1",
    GRPC_PORT: String(test.app.grpc.port),
  };
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [...sourceLoaderFlags, "src/internal/staff-command.ts", ...args],
      { cwd: root, env },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const api = (method: string, path: string, body?: unknown, token?: string) =>
  consoleCall(test.base, method, path, body, token, randomAddress());

Staff("applications, approve, a refused second decision, publish-agreement", async () => {
  const file = staffCredentialPath(test.config.dataDir);
  assert.is(file, join(test.config.dataDir, "staff-credential"));
  assert.is((await stat(file)).mode & 0o777, 0o600, "the credential is the owner's alone");

  const email = `waiting.${process.pid}@staff.test`;
  const password = "correct horse battery staple";
  assert.is((await api("POST", "/v1/console/account/sign-up", { email, password })).status, 200);
  await api("POST", "/v1/console/account/verify-email", { token: tokenOf(await mailedLink(test, email)) });
  const session = (await api("POST", "/v1/console/session/sign-in", { email, password })).body["session"] as Record<
    string,
    string
  >;
  const token = session["accessToken"]!;
  const applied = await api(
    "POST",
    "/v1/console/program/applications",
    { companyName: "Waiting Ltd", website: "https://waiting.test", useCase: "menu sync" },
    token,
  );
  assert.is(applied.status, 200, JSON.stringify(applied.body));
  const id = Number((applied.body["application"] as Record<string, number>)["applicationId"]);

  const listed = await staff("applications");
  assert.is(listed.code, 0, listed.stderr);
  assert.ok(listed.stdout.includes(`#${id}  Waiting Ltd  https://waiting.test\n`), listed.stdout);
  assert.ok(listed.stdout.includes("    use case: menu sync\n"), listed.stdout);

  const approved = await staff("approve", String(id));
  assert.is(approved.code, 0, approved.stderr);
  assert.is(approved.stdout, `application #${id} (Waiting Ltd) approved\n`);
  const account = (await api("GET", "/v1/console/account", undefined, token)).body["account"] as Record<
    string,
    unknown
  >;
  assert.is(account["programApplicationState"], "APPROVED");
  assert.is((await staff("applications")).stdout, "no program application is waiting for a decision\n");

  const again = await staff("decline", String(id));
  assert.is(again.code, 1);
  assert.is(
    again.stderr,
    "refused (developer.program_application_not_pending): This program application was already decided (APPROVED).\n",
  );

  const published = await staff("publish-agreement", "Developer agreement", "https://staff.test/agreement");
  assert.is(published.code, 0, published.stderr);
  assert.match(
    published.stdout,
    /^developer agreement version \d+ published, active from now on: Developer agreement \(https:\/\/staff\.test\/agreement\)\n$/,
  );
  const agreement = (await api("GET", "/v1/console/program/agreement", undefined, token)).body["agreement"] as Record<
    string,
    unknown
  >;
  assert.is(agreement["url"], "https://staff.test/agreement");
});

Staff("wrong use: usage and exit status 2, nothing called", async () => {
  const none = await staff();
  assert.is(none.code, 2);
  assert.match(none.stderr, /^usage: npm run staff -- <command>/);
  const bad = await staff("approve", "twelve");
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /^an application id is a positive number/);
  const unknown = await staff("delete-everything");
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /^unknown command "delete-everything"/);
});

Staff.run();
