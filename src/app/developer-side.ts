// The developer side's wiring: the console's mail, the partner request log, webhook delivery, the ConsoleService.
import type { Config } from "../config/config.js";
import { cachedClientIdentities, createRequestLogQueries, createRequestRecorder } from "../request-log/index.js";
import { clientIdEnvironment, findClient } from "../credential/index.js";
import { accountMailText, endpointDisabledMailText, invitationMailText } from "../web/mail-texts.js";
import { mailStopBoundMs } from "./shutdown.js";
import { startConsoleMail, createConsoleService, type MailOutbox } from "../console/index.js";
import type { Closers } from "../runtime/closers.js";
import type { Logger } from "../runtime/logger.js";
import type { Database } from "../storage/postgres.js";
import {
  createWebhookOwner,
  forbiddenWebhookPorts,
  deliveryStopBoundMs,
  startWebhookDelivery,
  systemResolver,
} from "../webhook/index.js";
import type { AppOptions, AppContext } from "./context.js";
import { type Stores, type SigningKeys, outboxSources } from "./stores.js";
import type { Owners } from "./owners.js";
import type { Partner } from "./partner-gateway.js";

/**
 * The developer side: the console's outbox, the partner request log, webhook delivery and the ConsoleService (its
 * own sessions, audience partnerapi-console, calling the owners above through their plain interfaces).
 */
export async function buildDeveloperSide(
  options: AppOptions,
  context: AppContext,
  stores: Stores,
  keys: SigningKeys,
  owners: Owners,
  partner: Partner,
  closers: Closers,
) {
  const { config, logger } = context;
  const { control, regionDatabases, keyValue } = stores;
  // The outbox's workers stop after the listeners (closers run in reverse) and before the databases close; what is
  // queued stays in the control database for the next start or another process.
  const mail = await startConsoleMail({
    config,
    logger,
    clock: context.clock,
    control,
    kek: keys.kek,
    mailTexts: consoleMailTexts,
    transport: options.mailTransport,
    send: true,
  });
  closers.add("console mail", () => mail.close(config.shutdownGraceSeconds * 1000), mailStopBoundMs(config));
  // The partner request log: buffered in process, written every REQUEST_LOG_FLUSH_MS; its last batch is written
  // after the front stops (closers run in reverse) and before the databases close.
  const requestLog = createRequestRecorder({
    sql: control.sql,
    clock: context.clock,
    logger,
    flushIntervalMs: config.requestLog.flushMs,
  });
  closers.add("request log", () => requestLog.close());
  const requestLogQueries = createRequestLogQueries(control.sql);
  // The app of a client id an OAuth endpoint's call sent: its calls, refused ones too, go in that app's log.
  const identifyClient = cachedClientIdentities(async (clientId) => {
    if (!clientIdEnvironment(clientId)) return undefined;
    const client = await findClient(control.sql, clientId);
    return client && { appId: client.app_id, environment: client.environment };
  }, context.clock);
  // Webhooks: the queue in the control database; an all-roles process also relays every outbox and delivers.
  // The internal port's bound port joins the forbidden ones once it listens (GRPC_PORT=0 picks one).
  const forbiddenPorts = forbiddenWebhookPorts(config);
  const webhooks = await startWebhookDelivery({
    config,
    logger,
    clock: context.clock,
    control,
    sources: stores.role === "all" ? outboxSources(control, regionDatabases) : [],
    kek: keys.kek,
    resolve: options.webhookResolver,
    forbiddenPorts,
    onDisabled: mailEndpointDisabled(mail, control, config, logger),
    deliver: stores.role === "all",
    metrics: context.metrics,
  });
  closers.add("webhook delivery", () => webhooks.stop(), deliveryStopBoundMs);
  const { endpoints: webhookEndpoints, service: webhookService } = createWebhookOwner(context, {
    sql: control.sql,
    verifyClient: owners.credentials.verifyClientCredentials,
    kek: keys.kek,
    resolve: options.webhookResolver ?? systemResolver,
    forbiddenPorts,
    nudge: webhooks.nudge,
    queue: webhooks.queue,
  });
  const consoleService = createConsoleService(context, {
    sql: control.sql,
    kv: keyValue,
    signingKey: () => keys.signingKeys.signingKey(),
    publicKey: (kid) => partner.keyRing.publicKey(kid),
    mail,
    credentials: owners.credentials,
    accessRequests: owners.accessRequests,
    webhooks: webhookEndpoints,
    requestLog: { beforeRead: () => requestLog.flush() },
  });
  return {
    mail,
    requestLog,
    requestLogQueries,
    identifyClient,
    forbiddenPorts,
    webhooks,
    webhookService,
    consoleService,
  };
}
export type DeveloperSide = Awaited<ReturnType<typeof buildDeveloperSide>>;

/** The console's mail in its reader's language, from the sites' catalogues. */
export const consoleMailTexts = {
  invitation: invitationMailText,
  account: accountMailText,
  endpointDisabled: endpointDisabledMailText,
};

/**
 * An endpoint disabled after days of failures: every member of the app's organization is mailed. Queued on the
 * control database's pool once the attempt runner has disabled it (its notice comes after that commit): a crash
 * between the two loses the notice, the endpoint's state on the app's page still says it.
 */
export function mailEndpointDisabled(mail: MailOutbox, control: Database, config: Config, logger: Logger) {
  return (notice: { endpointId: string; url: string; appId: string; emails: string[]; appName: string }) => {
    const days = Math.round(config.webhooks.disableAfterSeconds / 86_400);
    for (const to of notice.emails) {
      const intent = { kind: "webhook endpoint disabled" as const, to, appId: notice.appId, appName: notice.appName };
      mail
        .enqueue(control.sql, { ...intent, url: notice.url, days })
        .catch((error: unknown) => logger.error("console mail not queued", { what: intent.kind, error }));
    }
  };
}
