// Which thrown errors mean "the database is unavailable" (503 server.database_unavailable) and which are a query's
// own failure (still server.internal): real errors from postgres.js against a closed port and a real server,
// and the shapes postgres.js builds for a dropped connection or a server shutting down.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConnectError, Code } from "@connectrpc/connect";
import postgres from "postgres";
import { isDatabaseUnavailable } from "../../src/storage/unavailable.js";
import { freePort } from "../support/test-app.js";
import { useTestDatabase } from "../support/storage.js";

const Unavailable = suite("storage/unavailable");
const database = useTestDatabase(Unavailable);

/** What postgres.js rejects with for a server message (a PostgresError carries the SQLSTATE as `code`). */
function postgresError(code: string): Error {
  return Object.assign(new Error("server says"), { name: "PostgresError", code, severity: "FATAL" });
}

Unavailable("a closed port: postgres.js rejects with ECONNREFUSED, which is unavailability", async () => {
  const port = await freePort();
  const sql = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, {
    max: 1,
    connect_timeout: 2,
    onnotice: () => {},
  });
  try {
    const error = await sql`select 1`.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.is((error as { code?: string }).code, "ECONNREFUSED");
    assert.ok(isDatabaseUnavailable(error));
  } finally {
    await sql.end({ timeout: 0 });
  }
});

Unavailable("postgres.js's connection errors and the shutdown SQLSTATEs are unavailability", () => {
  for (const code of [
    "CONNECTION_CLOSED",
    "CONNECTION_ENDED",
    "CONNECTION_DESTROYED",
    "CONNECT_TIMEOUT",
    "ECONNRESET",
    "ETIMEDOUT",
    "EPIPE",
  ]) {
    assert.ok(isDatabaseUnavailable(Object.assign(new Error(code), { code })), code);
  }
  for (const state of ["57P01", "57P02", "57P03", "53300", "57014", "25006", "08006", "08001"]) {
    assert.ok(isDatabaseUnavailable(postgresError(state)), state);
  }
});

Unavailable(
  "a connect refused by the route (EINVAL under a blackhole route, ENETDOWN, EADDRNOTAVAIL) is unavailability; EINVAL from anything else is not",
  () => {
    for (const code of ["EINVAL", "ENETDOWN", "EADDRNOTAVAIL", "EHOSTDOWN"]) {
      assert.ok(isDatabaseUnavailable(Object.assign(new Error(`connect ${code}`), { code, syscall: "connect" })), code);
    }
    assert.not.ok(
      isDatabaseUnavailable(Object.assign(new Error("write EINVAL"), { code: "EINVAL", syscall: "write" })),
    );
    assert.not.ok(isDatabaseUnavailable(Object.assign(new Error("EINVAL"), { code: "EINVAL" })));
  },
);

Unavailable("found through a cause or an AggregateError (connect's wrapping, a dual-stack connect)", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
  assert.ok(isDatabaseUnavailable(new ConnectError("wrapped", Code.Internal, undefined, undefined, refused)));
  assert.ok(isDatabaseUnavailable(new AggregateError([new Error("x"), refused])));
});

Unavailable("a query's own failure is not: syntax, constraint, a bug, and non-errors", async () => {
  const { sql } = database();
  const syntax = await sql`selec 1`.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.is((syntax as { code?: string }).code, "42601");
  assert.not.ok(isDatabaseUnavailable(syntax));
  // A five-character code starting 08 that is not a PostgresError is somebody else's code.
  assert.not.ok(isDatabaseUnavailable(Object.assign(new Error("x"), { code: "08123" })));
  for (const other of [
    postgresError("23505"),
    new Error("boom"),
    new RangeError("bigint"),
    "ECONNREFUSED",
    undefined,
    null,
    { code: 57 },
  ]) {
    assert.not.ok(isDatabaseUnavailable(other), String(other));
  }
});

Unavailable.run();
