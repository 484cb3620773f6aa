// Shutdown is bounded whatever the dependencies do (issue 36): the whole program as a process on a PostgreSQL of the
// test's own, which goes away (stopped: connections refused; frozen: connections accepted, never answered), then
// SIGTERM. The process must log `stopped` and exit within its bound (SHUTDOWN_DRAIN_SECONDS + SHUTDOWN_GRACE_SECONDS
// + the closing allowance, docs/configuration.md); one was once still retrying its online-order timers minutes later.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as assert from "uvu/assert";
import { startPrivatePostgres, type PrivatePostgres } from "./support/private-postgres.js";
import { startRole, type RoleProcess } from "./support/role-process.js";
import { suite } from "./support/suite.js";

const Shutdown = suite("shutdown-database-gone");

/** Starts the program on its own database, takes the database away with `away`, sends SIGTERM; the exit and output. */
async function stopWithDatabaseGone(away: (database: PrivatePostgres, service: RoleProcess) => Promise<void>) {
  const database = await startPrivatePostgres();
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-shutdown-"));
  const service = startRole([], {
    HOST: "127.0.0.1",
    PORT: "0",
    AUTH_PORT: "0",
    CONSOLE_PORT: "0",
    GRPC_PORT: "0",
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SHUTDOWN_GRACE_SECONDS: "2",
    SHUTDOWN_DRAIN_SECONDS: "0",
  });
  try {
    await service.line("partner API ready", 180_000);
    await away(database, service);
    service.child.kill("SIGTERM");
    // A hang guard only, above the bound (0 s + 2 s + 5 s): the answer is the exit and the lines, never a duration.
    const exit = await Promise.race([
      service.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve("still running 45 s after SIGTERM"), 45_000).unref()),
    ]);
    return { exit, output: service.output(), entries: service.entries() };
  } finally {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill("SIGKILL");
    await service.exited;
    await database.destroy();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const tailOf = (output: string) => output.split("\n").slice(-8).join("\n");

Shutdown(
  "the database stopped, the timers failing on every tick: every loop stops, `stopped` is logged, exit 0",
  async () => {
    const { exit, output, entries } = await stopWithDatabaseGone(async (database, service) => {
      await database.stop("immediate");
      // The state of the report: the timers fail on every tick. (Error lines go to stderr: the output is searched.)
      const failing = '"msg":"online order timers failed; retrying on the next tick"';
      for (let tries = 0; !service.output().includes(failing); tries++) {
        assert.ok(tries < 600, "the timers never failed");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    assert.is(exit, 0, tailOf(output));
    assert.ok(
      entries.some((entry) => entry["msg"] === "stopped"),
      `no "stopped" line:\n${tailOf(output)}`,
    );
    assert.not.ok(output.includes('"msg":"still running after stop: exiting"'), "nothing was left open");
  },
  { timeoutMs: 600_000 },
);

Shutdown(
  "the database frozen (accepts, never answers): shutdown still ends within its bound, `stopped` logged",
  async () => {
    const { exit, output, entries } = await stopWithDatabaseGone((database) => database.freeze(true));
    // Closing waits on a database that never answers (pools, the delivery queue's graceful stop): the bound ends it.
    assert.is(exit, 1, tailOf(output));
    assert.ok(output.includes('"msg":"shutdown did not finish within its bound: exiting"'), tailOf(output));
    assert.ok(
      entries.some((entry) => entry["msg"] === "stopped" && entry["forced"] === true),
      `no "stopped" line:\n${tailOf(output)}`,
    );
  },
  { timeoutMs: 600_000 },
);

Shutdown.run();
