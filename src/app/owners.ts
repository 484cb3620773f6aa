// The owners of data (credential, token, grant, each region's DataService) wired once and shared by every listener.
import { readFile } from "node:fs/promises";
import type { Config } from "../config/config.js";
import { createRegionalCallers } from "../gateway/regional-data.js";
import { createRegionDispatcher } from "../internal/region-dispatcher.js";
import { createSandboxGrants, createGrantOwner } from "../grant/index.js";
import { createTokenService } from "../token/index.js";
import { readPresentedCredential } from "../internal/service-credentials.js";
import type { Closers } from "../runtime/closers.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import { createCredentialOwner } from "../credential/index.js";
import { createDataService, createOrderTimers, type DataServiceImpl, type OrderTimers } from "../data/index.js";
import type { Region } from "../config/regions.js";
import type { AppContext } from "./context.js";
import type { Stores, SigningKeys } from "./stores.js";

/**
 * The owners, built once and shared by every listener: in process they talk through plain interfaces (the credential
 * owner's `credentials`, the grant owner's `accessRequests`); their Connect services serve the internal port.
 */
export async function buildOwners(context: AppContext, stores: Stores, keys: SigningKeys, closers: Closers) {
  const { config, logger, metrics } = context;
  const { control, regionDatabases, keyValue } = stores;
  const { kek, signingKeys } = keys;
  const { credentials, service: credential } = createCredentialOwner(context, {
    sql: control.sql,
    regionSql: (region) => regionDatabases.get(region)?.sql,
    sandboxGrants: createSandboxGrants(),
  });
  const token = createTokenService(context, {
    sql: control.sql,
    keyValue,
    keys: signingKeys,
    verifyClient: credentials.verifyClientCredentials,
    kek,
  });
  const { accessRequests, service: grant } = createGrantOwner(context, {
    sql: control.sql,
    regionSql: (region) => regionDatabases.get(region)?.sql,
  });
  // Each region's DataService on that region's database; the internal port dispatches by the merchant's region.
  const localData = new Map<Region, DataServiceImpl>();
  const orderTimers = new Map<Region, OrderTimers>();
  for (const region of config.servedRegions) {
    const database = regionDatabases.get(region);
    if (!database) continue;
    localData.set(region, createDataService(context, { region, sql: database.sql }));
    // The decision timeout and the sandbox autopilot run where the region's data is; stopped before its pool closes.
    const timers = createOrderTimers(context, { region, sql: database.sql });
    orderTimers.set(region, timers);
    closers.add(`order timers:${region}`, timers.start());
  }
  const data = createRegionDispatcher(localData, control.sql);
  const regional = createRegionalCallers(config, localData, await remoteRegionOptions(config, logger, metrics));
  closers.add("regional callers", async () => regional.close());
  return { credentials, credential, token, accessRequests, grant, data, regional, orderTimers };
}
export type Owners = Awaited<ReturnType<typeof buildOwners>>;

/** The front's side of the hop to remote regions: its `front` credential and the CA it trusts for https URLs. */
async function remoteRegionOptions(config: Config, logger: Logger, metrics: Metrics) {
  const { credentialFile, caFile } = config.regionHop;
  const remote = config.servedRegions.filter((region) => config.regions[region].grpcUrl);
  if (remote.length > 0 && !credentialFile) {
    logger.warn("remote regions without REGION_GRPC_CREDENTIAL_FILE: their DataServices will refuse every call", {
      regions: remote,
    });
  }
  return {
    credential: credentialFile ? await readPresentedCredential(credentialFile) : undefined,
    ca: caFile ? await readFile(caFile) : undefined,
    logger,
    metrics,
  };
}
