// Service credentials of the internal port: their shape, the credentials file (what it accepts and how a malformed
// one is refused, naming the line), verification, the operator credential of a brand-new embedded start, and the
// staff credential of development mode (npm run staff).
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  claimedId,
  CredentialsFileError,
  ensureEmbeddedOperatorCredential,
  ensureLocalStaffCredential,
  loadServiceCredentials,
  newServiceCredential,
  parseCredentialsFile,
  readPresentedCredential,
} from "../../src/internal/service-credentials.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { createLogger, silentLogger } from "../../src/runtime/logger.js";

const Credentials = suite("internal/service-credentials");
const clock = createManualClock();

async function scratch<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "pa-credentials-"));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

Credentials(
  "a credential is svc_<id>_<43 base64url chars>; its line is role, id and the SHA-256 of the whole credential",
  () => {
    const { credential, line } = newServiceCredential("staff", "review-desk");
    assert.match(credential, /^svc_review-desk_[A-Za-z0-9_-]{43}$/);
    const [role, id, hash] = line.split(" ");
    assert.equal([role, id], ["staff", "review-desk"]);
    assert.match(hash!, /^[0-9a-f]{64}$/);
    assert.is(claimedId(credential), "review-desk");
    assert.is(claimedId("svc_review-desk_short"), undefined);
    assert.match(newServiceCredential("front").credential, /^svc_front-[0-9a-f]{8}_/);
    assert.throws(() => newServiceCredential("front", "Not_Valid"), /a credential id is 1 to 40/);
  },
);

Credentials("a credentials file skips blanks and comments and refuses anything else, naming the line", () => {
  const good = newServiceCredential("operator", "op-1").line;
  const entries = parseCredentialsFile(`# comment\n\n  ${good}  \n`, "creds");
  assert.equal([...entries.keys()], ["op-1"]);
  const hash = good.split(" ")[2];
  const refused = (text: string) => {
    try {
      parseCredentialsFile(text, "creds");
      return "accepted";
    } catch (error) {
      assert.instance(error, CredentialsFileError);
      return (error as Error).message;
    }
  };
  assert.is(refused(`root op-2 ${hash}`), "creds line 1: unknown role root (roles: operator, staff, front, pos)");
  assert.is(refused(`${good}\noperator op-1 ${hash}`), "creds line 2: id op-1 appears twice");
  assert.is(refused(`operator op-2 ${hash!.toUpperCase()}`), "creds line 1: the hash must be 64 lowercase hex digits");
  assert.is(refused(`operator op-2`), 'creds line 1: expected "<role> <id> <sha256 hex>"');
  assert.is(refused(`operator op-2 ${hash} extra`), 'creds line 1: expected "<role> <id> <sha256 hex>"');
  assert.is(refused(`operator Op_2 ${hash}`), "creds line 1: malformed id");
});

Credentials(
  "verification: the right credential gives its caller; a wrong secret, an unknown id or junk give none",
  async () => {
    await scratch(async (dir) => {
      const operator = newServiceCredential("operator", "op-1");
      const front = newServiceCredential("front", "fr-1");
      const file = join(dir, "creds");
      await writeFile(file, `${operator.line}\n${front.line}\n`);
      const credentials = await loadServiceCredentials({ file, clock, logger: silentLogger });
      assert.equal(await credentials.verify(operator.credential), { id: "op-1", role: "operator" });
      assert.equal(await credentials.verify(front.credential), { id: "fr-1", role: "front" });
      assert.is(
        await credentials.verify(operator.credential.slice(0, -1) + (operator.credential.endsWith("A") ? "B" : "A")),
        undefined,
      );
      assert.is(await credentials.verify(operator.credential.replace("op-1", "op-9")), undefined);
      assert.is(await credentials.verify(""), undefined);
      assert.is(await credentials.verify("svc_op-1_" + "x".repeat(500)), undefined);
      assert.equal(credentials.counts(), { operator: 1, staff: 0, front: 1, pos: 0 });
    });
  },
);

Credentials("a missing file accepts nobody, with a warning; a malformed one stops the start", async () => {
  await scratch(async (dir) => {
    const logs: string[] = [];
    const credentials = await loadServiceCredentials({
      file: join(dir, "absent"),
      clock,
      logger: createLogger({ write: (line) => logs.push(line) }),
    });
    assert.equal(credentials.counts(), { operator: 0, staff: 0, front: 0, pos: 0 });
    assert.ok(logs.some((line) => line.includes("no internal credentials")));
    await writeFile(join(dir, "bad"), "operator\n");
    try {
      await loadServiceCredentials({ file: join(dir, "bad"), clock, logger: silentLogger });
      assert.unreachable("a malformed file must stop the start");
    } catch (error) {
      assert.instance(error, CredentialsFileError);
    }
  });
});

Credentials(
  "a brand-new embedded start makes an operator credential and its line, both 0600; a second start makes none",
  async () => {
    await scratch(async (dir) => {
      const credentialsFile = join(dir, "internal-credentials");
      const made = await ensureEmbeddedOperatorCredential({ credentialsFile, dataDir: dir });
      assert.is(made, join(dir, "operator-credential"));
      assert.is((await stat(made!)).mode & 0o777, 0o600);
      assert.is((await stat(credentialsFile)).mode & 0o777, 0o600);
      const credential = await readPresentedCredential(made!);
      const credentials = await loadServiceCredentials({ file: credentialsFile, clock, logger: silentLogger });
      assert.equal(await credentials.verify(credential), { id: "operator-embedded", role: "operator" });
      const before = await readFile(credentialsFile, "utf8");
      assert.is(await ensureEmbeddedOperatorCredential({ credentialsFile, dataDir: dir }), undefined);
      assert.is(await readFile(credentialsFile, "utf8"), before);
      assert.is(await readPresentedCredential(made!), credential);
    });
  },
);

Credentials(
  "development mode's staff credential: made beside the others, kept while accepted, replaced when its line is gone",
  async () => {
    await scratch(async (dir) => {
      const credentialsFile = join(dir, "internal-credentials");
      const operator = newServiceCredential("operator", "ops");
      await writeFile(credentialsFile, `# a comment stays\n${operator.line}\n`);
      const made = await ensureLocalStaffCredential({ credentialsFile, dataDir: dir });
      assert.is(made, join(dir, "staff-credential"));
      assert.is((await stat(made!)).mode & 0o777, 0o600);
      assert.is((await stat(credentialsFile)).mode & 0o777, 0o600);
      const credential = await readPresentedCredential(made!);
      const credentials = await loadServiceCredentials({ file: credentialsFile, clock, logger: silentLogger });
      assert.equal(await credentials.verify(credential), { id: "staff-local-dev", role: "staff" });
      assert.equal(await credentials.verify(operator.credential), { id: "ops", role: "operator" });

      // In place: nothing changes.
      const before = await readFile(credentialsFile, "utf8");
      assert.ok(before.startsWith(`# a comment stays\n${operator.line}\n`), before);
      assert.is(await ensureLocalStaffCredential({ credentialsFile, dataDir: dir }), undefined);
      assert.is(await readFile(credentialsFile, "utf8"), before);

      // Its line replaced by hand (a stale hash of the same id): a new credential, one line of that id.
      await writeFile(credentialsFile, `${operator.line}\nstaff staff-local-dev ${"0".repeat(64)}\n`);
      assert.is(await ensureLocalStaffCredential({ credentialsFile, dataDir: dir }), made);
      const replaced = await readPresentedCredential(made!);
      assert.is.not(replaced, credential);
      const text = await readFile(credentialsFile, "utf8");
      assert.is(text.split("\n").filter((line) => line.includes(" staff-local-dev ")).length, 1);
      const reloaded = await loadServiceCredentials({ file: credentialsFile, clock, logger: silentLogger });
      assert.equal(await reloaded.verify(replaced), { id: "staff-local-dev", role: "staff" });
      assert.is(await reloaded.verify(credential), undefined);
    });
  },
);

Credentials("a presented-credential file holding anything but one credential is refused, naming the file", async () => {
  await scratch(async (dir) => {
    const file = join(dir, "front-credential");
    await writeFile(file, "Bearer something\n");
    try {
      await readPresentedCredential(file);
      assert.unreachable("must be refused");
    } catch (error) {
      assert.is((error as Error).message, `${file}: not a service credential (svc_<id>_<secret>)`);
    }
  });
});

Credentials.run();
