// Entry point of `npm start`: reads the configuration, starts every role in one process on embedded defaults,
// and shuts down gracefully on SIGTERM / SIGINT.
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
// The app and the demo are imported once the configuration is read: a refused configuration, --help or a usage
// error answers without loading every service (about 1 s of CPU, and what a config-failure test waits for).
import type { RunningApp, RunningDataRole } from "./app.js";
import { ConfigError, loadConfig, type Config } from "./config/config.js";
import type { Clock } from "./runtime/clock.js";
import { programClock, TestClockRefused } from "./runtime/test-clock.js";
import { createLogger, type Logger } from "./runtime/logger.js";
import { isRegion, type Region } from "./config/regions.js";
import { roleAttribute, startTracing, type Tracing } from "./runtime/tracing.js";

/** What the command line asks for: a role (with its region for a data role) and whether to provision the demo. */
type Invocation = { role: "all" | "front" | "worker"; demo: boolean } | { role: "data"; region: Region; demo: boolean };

const usage =
  "usage: npm start [-- --demo] [-- --role all|front|worker|data [--region uk|us|in|ae]]\n" +
  "  --demo            provision the demo world (idempotent) and write it to $DATA_DIR/demo.json\n" +
  "  --role all        every role in this process (default)\n" +
  "  --role front      the front, consent site and internal port, without DataServices (REGION_GRPC_URL_<R>,\n" +
  "                    REGION_GRPC_CREDENTIAL_FILE)\n" +
  "  --role worker     webhook delivery alone: relays every database's event outbox and sends the attempts\n" +
  "                    (any number of workers share the work; an all-roles process delivers too)\n" +
  "  --role data       one region's DataService alone: for fronts on REGION_GRPC_PORT (grpc-js), with health on\n" +
  "                    the internal port (GRPC_PORT); needs --region\n" +
  "Configuration comes from the environment; see docs/configuration.md.\n";

/** The command line; undefined after --help, or after a usage error (exit code 2). */
function parseInvocation(): Invocation | undefined {
  const { values } = parseArgs({
    options: {
      help: { type: "boolean", short: "h" },
      demo: { type: "boolean" },
      role: { type: "string", default: "all" },
      region: { type: "string" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(usage);
    return undefined;
  }
  const { role, region } = values;
  const demo = values.demo ?? false;
  if (role === "data" && isRegion(region)) return { role, region, demo };
  if ((role === "all" || role === "front" || role === "worker") && region === undefined) return { role, demo };
  process.stderr.write(
    "--role must be all, front, worker or data; --region uk|us|in|ae goes with --role data, and only with it\n",
  );
  process.exitCode = 2;
  return undefined;
}

/** The configuration for the role, and the clock; undefined after a message naming what is wrong (exit code 2). */
function configure(invocation: Invocation): { config: Config; clock: Clock; tracing?: Tracing } | undefined {
  try {
    // The production checks depend on the role: a data role needs only its region's database.
    const config = loadConfig(
      process.env,
      invocation.role === "data" ? { role: "data", region: invocation.region } : { role: invocation.role },
    );
    // Traces when an OTLP endpoint is configured (src/runtime/tracing.ts); the role is a resource attribute.
    const tracing = startTracing(process.env, {
      [roleAttribute]: invocation.role,
      ...(invocation.role === "data" ? { "partner_api.region": invocation.region } : {}),
    });
    // The wall clock; in a test's child process, one the test can move (TEST_CLOCK_OFFSET_FILE, NODE_ENV=test only).
    return { config, clock: programClock(process.env), tracing };
  } catch (error) {
    if (error instanceof ConfigError || error instanceof TestClockRefused) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
      return undefined;
    }
    throw error;
  }
}

/** What a started role needs to report itself ready and stop on signals. */
interface Started {
  config: Config;
  clock: Clock;
  logger: Logger;
  /** performance.now() when the process began starting: the ready line's startupMs. */
  since: number;
  /** The internal port's scheme: with GRPC_TLS_CERT/KEY it speaks TLS only, and the ready line says so. */
  internalScheme: "http" | "https";
  /** Traces, when on: exported one last time once the role has stopped. */
  tracing: Tracing | undefined;
}

const startupMs = (since: number) => Math.round(performance.now() - since);
/** An address as a URL's host: IPv6 in brackets. */
const urlHost = (address: string) => (address.includes(":") ? `[${address}]` : address);

async function runDataRole(region: Region, started: Started) {
  const { config, clock, logger, since, internalScheme } = started;
  const { startDataRole } = await import("./app.js");
  const node = await startDataRole({ config, logger, clock, region });
  logger.info("data service ready", {
    region: node.region,
    grpc: `${internalScheme}://${node.grpc.address}:${node.grpc.port}`,
    regionGrpc: `${internalScheme}://${urlHost(node.regionGrpc.address)}:${node.regionGrpc.port}`,
    embeddedDatabase: node.database.embedded,
    startupMs: startupMs(since),
  });
  stopOnSignals(node, started);
}

async function runWorkerRole(started: Started) {
  const { config, clock, logger, since } = started;
  const { startWorkerRole } = await import("./app.js");
  const worker = await startWorkerRole({ config, logger, clock });
  logger.info("webhook worker ready", {
    embeddedDatabase: worker.control.embedded,
    ...(worker.metricsAddress
      ? { metrics: `http://${urlHost(worker.metricsAddress.address)}:${worker.metricsAddress.port}/metrics` }
      : {}),
    startupMs: startupMs(since),
  });
  stopOnSignals(worker, started);
}

/** The front role, or every role in this process (then with the demo world when asked or brand-new). */
async function runApp(role: "all" | "front", demo: boolean, started: Started) {
  const { config, clock, logger, internalScheme } = started;
  const { startApp } = await import("./app.js");
  const app = await startApp({ config, logger, clock, role });
  // The listeners answer from here on (/readyz included), so a signal from here on stops gracefully; one that
  // arrives while the demo world is being written waits for it, rather than ending the process halfway through it.
  let startupWork: Promise<unknown> = Promise.resolve();
  const stop = async () => {
    await startupWork.catch(() => undefined);
    await app.stop();
  };
  stopOnSignals({ stop }, started);
  // The demo needs the regions' databases, which only the all-roles process opens.
  if (role === "all") {
    startupWork = offerDemo(app, demo, started);
    await startupWork;
  }
  logger.info("partner API ready", {
    front: `http://${app.front.address}:${app.front.port}`,
    consent: `http://${app.consent.address}:${app.consent.port}`,
    console: `http://${app.console.address}:${app.console.port}`,
    grpc: `${internalScheme}://${app.grpc.address}:${app.grpc.port}`,
    embeddedDatabase: app.control.embedded,
    sharedLimits: app.keyValue.shared,
    metrics: `${internalScheme}://${app.grpc.address}:${app.grpc.port}/metrics`,
    startupMs: startupMs(started.since),
  });
}

/**
 * The demo world: provisioned when asked (--demo) and on a brand-new embedded database, so that
 * `npm install && npm start` has something to try; otherwise demo.json only learns this start's URLs.
 */
async function offerDemo(app: RunningApp, demo: boolean, { config, logger, internalScheme }: Started) {
  const { demoFilePath, describeDemo, provisionDemo, refreshDemoUrls } = await import("./demo/provision-demo.js");
  const demoFile = demoFilePath(config);
  if (demo || (app.control.embedded && !existsSync(demoFile))) {
    const world = await provisionDemo({
      config,
      logger,
      control: app.control.sql,
      regionDatabases: app.regionDatabases,
    });
    const grpcUrl = `${internalScheme}://${urlHost(app.grpc.address)}:${app.grpc.port}`;
    process.stdout.write(
      `${describeDemo(world, demoFile, { credentialsFile: config.internal.credentialsFile, grpcUrl })}\n`,
    );
  } else if (await refreshDemoUrls(config)) {
    logger.info("demo.json now names this start's URLs", {
      path: demoFile,
      baseUrl: config.urls.base,
      authUrl: config.urls.auth,
    });
  }
}

async function main(): Promise<void> {
  const invocation = parseInvocation();
  if (!invocation) return;
  const configured = configure(invocation);
  if (!configured) return;
  const { config, clock, tracing } = configured;
  const started: Started = {
    config,
    clock,
    logger: createLogger({ level: config.logLevel, pretty: config.logPretty }),
    since: performance.now(),
    internalScheme: config.internal.tls ? "https" : "http",
    tracing,
  };
  if (invocation.role === "data") return runDataRole(invocation.region, started);
  if (invocation.role === "worker") return runWorkerRole(started);
  return runApp(invocation.role, invocation.demo, started);
}

/** How long a stopped process may take to end by itself before it names its open handles and exits. */
const lingerAfterStopMs = 5000;

/**
 * What closing may take after the grace (pools, queues, the log): the shutdown's bound is
 * SHUTDOWN_DRAIN_SECONDS + SHUTDOWN_GRACE_SECONDS + this (docs/configuration.md).
 */
const closingAllowanceMs = 5000;

/**
 * Graceful shutdown on SIGTERM / SIGINT; a second signal exits at once, and so does a shutdown still under way at its
 * bound: a dependency that never answers (a database gone silent, a queue's graceful stop) must not keep a stopped
 * service running and retrying (issue 36).
 */
function stopOnSignals(app: { stop(): Promise<void> } | RunningDataRole, { logger, config, tracing }: Started): void {
  const boundMs = (config.shutdownDrainSeconds + config.shutdownGraceSeconds) * 1000 + closingAllowanceMs;
  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals > 1) {
      logger.warn("second signal: exiting now", { signal });
      process.exit(1);
    }
    logger.info("shutting down: finishing requests in flight", {
      signal,
      drainSeconds: config.shutdownDrainSeconds,
    });
    // Unreferenced: a shutdown that ends in time ends the process without waiting for it.
    const deadline = setTimeout(() => {
      logger.error("shutdown did not finish within its bound: exiting", {
        boundMs,
        open: process.getActiveResourcesInfo(),
      });
      logger.info("stopped", { forced: true });
      logger.flush();
      process.exit(1);
    }, boundMs).unref();
    // The spans of the last requests leave after them: the exporter's queue is flushed once the role has stopped.
    const stopped = app
      .stop()
      .then(() =>
        tracing?.shutdown().catch((error: unknown) => logger.warn("traces: the last export failed", { error })),
      );
    stopped.then(
      () => {
        clearTimeout(deadline);
        logger.info("stopped");
        // The asynchronous destination may still hold lines: write them before the process ends.
        logger.flush();
        // Everything opened is closed, so the process ends by itself now. A handle left open (a leak: a pool
        // connection opened after its pool ended kept it alive for good) must not keep a stopped service
        // running: after a moment, name what is still open and exit non-zero. The timer itself holds nothing.
        setTimeout(() => {
          logger.error("still running after stop: exiting", { open: process.getActiveResourcesInfo() });
          logger.flush();
          process.exit(1);
        }, lingerAfterStopMs).unref();
      },
      (error: unknown) => {
        logger.error("shutdown failed", { error });
        process.exitCode = 1;
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `partner API failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
