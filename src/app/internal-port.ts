// The internal port's wiring: every owner's Connect service over gRPC, gRPC-Web and Connect, with health and
// reflection.
import type { ConnectRouter } from "@connectrpc/connect";
import type { DescService } from "@bufbuild/protobuf";
import { file_google_rpc_error_details } from "../../gen/google/rpc/error_details_pb.js";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { createHealthService, ServingStatus } from "../internal/health.js";
import { createInternalPort } from "../internal/internal-port.js";
import { reflectionServices, registerReflection } from "../internal/reflection.js";
import type { AppContext } from "./context.js";
import type { Stores } from "./stores.js";
import type { Owners } from "./owners.js";
import type { DeveloperSide } from "./developer-side.js";

/** The services of the internal port, in the order `buf curl --list-services` shows them. */
export const internalServices: readonly DescService[] = [
  TokenService,
  GrantService,
  CredentialService,
  DataService,
  ConsoleService,
];

/** The internal port: every service over gRPC, gRPC-Web and Connect, with health and reflection. */
export async function buildInternalPort(context: AppContext, stores: Stores, owners: Owners, developer: DeveloperSide) {
  const { config, logger, metrics } = context;
  const health = createHealthService();
  const routes = (router: ConnectRouter) => {
    router.service(TokenService, owners.token);
    router.service(GrantService, owners.grant);
    router.service(CredentialService, owners.credential);
    router.service(DataService, owners.data);
    router.service(ConsoleService, developer.consoleService);
    router.service(Health, health.impl);
    registerReflection(router, [...internalServices, ...reflectionServices, Health], [file_google_rpc_error_details]);
  };
  for (const service of internalServices) health.setStatus(service.typeName, ServingStatus.SERVING);
  const port = await createInternalPort({
    config,
    embedded: stores.control.embedded,
    // The console runs here: in development mode `npm run staff` stands in for its staff.
    localStaff: true,
    routes,
    clock: context.clock,
    ids: context.ids,
    logger,
    metrics,
  });
  return { port, health };
}
