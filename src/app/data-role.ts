// startDataRole: one region's DataService on its database, served on the internal port and the region hop.
import type { AddressInfo } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import { file_google_rpc_error_details } from "../../gen/google/rpc/error_details_pb.js";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { createHealthService, ServingStatus } from "../internal/health.js";
import { createInternalPort } from "../internal/internal-port.js";
import { reflectionServices, registerReflection } from "../internal/reflection.js";
import type { Metrics } from "../runtime/metrics.js";
import { createDataService, createOrderTimers, type OrderTimers } from "../data/index.js";
import { migrateRegion } from "../storage/migrate.js";
import { openDatabase, readinessOf, type Database } from "../storage/postgres.js";
import type { Region } from "../config/regions.js";
import { type AppOptions, serviceContextOf } from "./context.js";
import { closersFor, stopOnce } from "./shutdown.js";
import { probeTimeoutMs, healthPollIntervalMs, readinessWith } from "./readiness.js";
import { listenForMetricsIfAsked } from "./listeners.js";

export interface RunningDataRole {
  /** The internal port serving this region's DataService (gRPC, gRPC-Web, Connect), health and reflection. */
  grpc: AddressInfo;
  /** The region hop (REGION_GRPC_PORT): the DataService on grpc-js, where fronts' REGION_GRPC_URL_<R> point. */
  regionGrpc: AddressInfo;
  region: Region;
  database: Database;
  /** The region's online-order timers (the decision timeout, the sandbox autopilot). */
  orderTimers: OrderTimers;
  metrics: Metrics;
  metricsAddress: AddressInfo | undefined;
  stop(): Promise<void>;
}

/**
 * `npm start -- --role data --region <r>`: one region's DataService on that region's database
 * (REGION_DATABASE_URL_<R>, else DATABASE_URL, else the embedded one), served to fronts on the region hop's grpc-js
 * port (REGION_GRPC_PORT, where their REGION_GRPC_URL_<R> point) and, with health and reflection, on the internal
 * port (GRPC_PORT).
 */
export async function startDataRole(options: AppOptions & { region: Region }): Promise<RunningDataRole> {
  const { config, logger, region } = options;
  const context = serviceContextOf(options);
  const { metrics } = context;
  const closers = closersFor(options);
  try {
    const url = config.regions[region].databaseUrl ?? config.databaseUrl;
    const database = await openDatabase({ url, dataDir: config.dataDir, logger, timeouts: config.databaseTimeouts });
    closers.add(`database:region_${region}`, () => database.close());
    await migrateRegion(database.sql, region, logger);
    const data = createDataService(context, { region, sql: database.sql });
    const orderTimers = createOrderTimers(context, { region, sql: database.sql });
    closers.add(`order timers:${region}`, orderTimers.start());
    const health = createHealthService();
    const routes = (router: ConnectRouter) => {
      router.service(DataService, data);
      router.service(Health, health.impl);
      registerReflection(router, [DataService, ...reflectionServices, Health], [file_google_rpc_error_details]);
    };
    health.setStatus(DataService.typeName, ServingStatus.SERVING);
    // The data role's health follows its database (and shutdown), as the front's follows everything it uses.
    const shutdown = { started: false };
    const readiness = readinessWith(shutdown, readinessOf([[`database:region_${region}`, database]], probeTimeoutMs));
    health.followReadiness(readiness, { clock: context.clock, intervalMs: healthPollIntervalMs });
    metrics.followAvailability({ databases: [`database:region_${region}`], redis: false, probe: readiness });
    const internal = await createInternalPort({
      config,
      embedded: database.embedded,
      routes,
      clock: context.clock,
      ids: context.ids,
      logger,
      metrics,
      hop: { service: DataService, impl: data },
    });
    const grpc = await internal.listen(config.listen.grpcPort, config.listen.grpcHost);
    closers.add("internal port", () => internal.close(config.shutdownGraceSeconds * 1000));
    const regionGrpc = await internal.hop!.listen(config.listen.regionGrpcPort, config.listen.grpcHost);
    closers.add("region hop", () => internal.hop!.close(config.shutdownGraceSeconds * 1000));
    const metricsAddress = await listenForMetricsIfAsked(config, metrics, closers);
    return {
      grpc,
      regionGrpc,
      region,
      database,
      orderTimers,
      metrics,
      metricsAddress,
      stop: stopOnce({
        health,
        shutdown,
        closers,
        loops: [orderTimers.stop],
        drainMs: config.shutdownDrainSeconds * 1000,
        clock: context.clock,
      }),
    };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}
