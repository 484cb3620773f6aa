// The public front and the two sites (consent, console), wired to the owners and the developer side.
import { readFile } from "node:fs/promises";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { WebhookService } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { createConsentServer } from "../consent/consent-server.js";
import { createConsoleSite } from "../console-site/console-server.js";
import type { VouchedClients } from "../runtime/vouched-client.js";
import {
  eventDataSchemaNames,
  eventDataSchemas,
  eventDescriptions,
  eventTypes,
  webhookHeaders,
} from "../events/index.js";
import { createSandboxOrderDesk } from "../console-site/sandbox-order-desk.js";
import { createSandboxMenuDesk } from "../console-site/sandbox-menu-desk.js";
import type { FirstCallRoute } from "../console-site/first-call.js";
import { merchantUserVerifier } from "../consent/merchant-users.js";
import { createFrontServer } from "../front/front-server.js";
import { loadReferenceFiles } from "../front/reference-page.js";
import { createInProcessCaller, createInProcessClient } from "../runtime/service-caller.js";
import { createAuthorization, createConnections } from "../grant/index.js";
import { findApp } from "../credential/index.js";
import { recentMerchantEvents } from "../webhook/index.js";
import type { Readiness } from "../storage/postgres.js";
import type { AppContext } from "./context.js";
import type { Stores } from "./stores.js";
import type { Owners } from "./owners.js";
import type { Partner } from "./partner-gateway.js";
import type { DeveloperSide } from "./developer-side.js";

/** The public front: /v1 over the services in process, the partner gateway, the request log, the OpenAPI document. */
export async function buildFront(
  context: AppContext,
  owners: Owners,
  partner: Partner,
  developer: DeveloperSide,
  readiness: () => Promise<Readiness>,
  vouchedClients: VouchedClients,
) {
  const { config, logger, metrics } = context;
  return createFrontServer({
    services: [
      // The token endpoints read the DPoP proof header (RFC 9449 section 5).
      { service: TokenService, caller: createInProcessCaller(TokenService, owners.token), reads: ["dpop"] },
      { service: DataService, caller: createInProcessCaller(DataService, owners.data) },
      // The console authenticates a developer by the Authorization header (its session token).
      {
        service: ConsoleService,
        caller: createInProcessCaller(ConsoleService, developer.consoleService),
        reads: ["authorization"],
      },
      { service: WebhookService, caller: createInProcessCaller(WebhookService, developer.webhookService) },
    ],
    partner: partner.gateway,
    requestLog: developer.requestLog,
    identifyClient: developer.identifyClient,
    bodyLimitBytes: config.bodyLimitBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    trustProxy: config.trustProxy,
    vouchedClients,
    clock: context.clock,
    ids: context.ids,
    logger,
    readiness,
    metrics,
    openapi: {
      baseUrl: config.urls.base,
      authUrl: config.urls.auth,
      version: await packageVersion(),
      events: {
        types: eventTypes,
        descriptions: eventDescriptions,
        dataSchemaNames: eventDataSchemaNames,
        dataSchemas: eventDataSchemas,
        headers: webhookHeaders,
      },
    },
    reference: await loadReferenceFiles(),
  });
}

/** The consent site: the merchant's pages of the authorization endpoint, their connected apps, access requests. */
export function buildConsentSite(
  context: AppContext,
  stores: Stores,
  owners: Owners,
  developer: DeveloperSide,
  readiness: () => Promise<Readiness>,
) {
  const { config, logger } = context;
  const { control, keyValue } = stores;
  return createConsentServer({
    logger,
    config,
    clock: context.clock,
    ids: context.ids,
    sql: control.sql,
    kv: keyValue,
    authorization: createAuthorization({ sql: control.sql, config, clock: context.clock, ids: context.ids, logger }),
    connections: createConnections({ sql: control.sql, clock: context.clock, logger }),
    verifyMerchantUser: merchantUserVerifier(owners.credentials),
    // The app's website, privacy policy and terms as its developer gave them in the console (checked there).
    appLinks: async (appId) => {
      const app = await findApp(control.sql, appId);
      return {
        ...(app?.website_url ? { website: app.website_url } : {}),
        ...(app?.privacy_policy_url ? { privacyUrl: app.privacy_policy_url } : {}),
        ...(app?.terms_url ? { termsUrl: app.terms_url } : {}),
      };
    },
    // Access requests name stores: the names come from the merchant's region (its DataService, in process);
    // the first 500 stores, the limit of one access request.
    storeNames: async (companyId) => {
      const stores = createInProcessClient(DataService, owners.data);
      const names = new Map<number, string>();
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const listed = await stores.listStores({
          companyId: BigInt(companyId),
          limit: 100,
          ...(cursor ? { cursor } : {}),
        });
        for (const store of listed.stores) names.set(Number(store.id), store.name);
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      return names;
    },
    lastCalls: async (companyId) => {
      await developer.requestLog.flush();
      return developer.requestLogQueries.lastCalls(companyId);
    },
    readiness,
  });
}

/** The developer console's pages: the same ConsoleService the /v1/console routes call, in process. */
export function buildConsoleSite(
  context: AppContext,
  stores: Stores,
  owners: Owners,
  developer: DeveloperSide,
  readiness: () => Promise<Readiness>,
  firstCall: FirstCallRoute,
) {
  const { config, logger } = context;
  return createConsoleSite({
    config,
    logger,
    clock: context.clock,
    ids: context.ids,
    kv: stores.keyValue,
    console: developer.consoleService,
    // The sandbox merchant page reads and moves orders in the merchant's region, through the gateway's callers.
    sandboxOrders: createSandboxOrderDesk({ callers: owners.regional.callers, ids: context.ids, clock: context.clock }),
    // The menu page changes the menu through the same callers; the events that went out are the delivery records of
    // the organization's sandbox endpoints (control database).
    sandboxMenu: {
      desk: createSandboxMenuDesk({ callers: owners.regional.callers, ids: context.ids }),
      events: (query) => recentMerchantEvents(stores.control.sql, query),
      clock: context.clock,
    },
    readiness,
    // Development mode: the program page names the `npm run staff` command that approves an application.
    development: config.internal.localStaff,
    // The first call goes to this process's own front, vouching for the developer's address.
    firstCall,
  });
}

/**
 * The version of this build (package.json), the OpenAPI document's info.version. The nearest package.json above this
 * module: src/ under tsx, dist/src/ once compiled (npm run build), /app/dist/src/ in the container image.
 */
async function packageVersion(): Promise<string> {
  for (let folder = new URL("./", import.meta.url); ; folder = new URL("../", folder)) {
    const text = await readFile(new URL("package.json", folder), "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (text !== undefined) return (JSON.parse(text) as { version: string }).version;
    if (new URL("../", folder).href === folder.href) throw new Error("no package.json above the program");
  }
}
