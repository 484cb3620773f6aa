// ConsoleService, what an app is doing: its partner request log (the last calls, filtered by status, merchant, time
// range, path, method and correlation id; one call with the error body it received) and its usage (requests a minute
// and 429s over 24 hours, against the limit). Any member of the app's organization may read them. The log is written
// off the request path (src/request-log/); in one process the reader first flushes what this process holds, so a
// developer sees the call they just made.
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { environmentEnum, requestedEnvironment } from "../credential/index.js";
import { createRequestLogQueries, type LoggedCall, type LoggedEnvironment } from "../request-log/index.js";
import type { ConsoleContext, ConsoleServiceDeps } from "./console-context.js";

/** The usage chart's window (the issue: the last 24 hours). */
export const usageWindowMs = 24 * 3600_000;
/** Calls a list answers when the request names no limit. */
const defaultListLimit = 100;

function entryOf(row: LoggedCall, errorBody = "") {
  return {
    id: BigInt(row.id),
    atMs: BigInt(row.at.getTime()),
    method: row.method,
    path: row.path,
    status: row.status,
    errorCode: row.error_code ?? "",
    companyId: BigInt(row.company_id ?? 0),
    correlationId: row.correlation_id,
    latencyMs: row.latency_ms,
    errorBody,
  };
}

export function createRequestLogHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<ConsoleContext, "authenticate" | "clock" | "config" | "fail" | "invalid" | "requireAppRole" | "sql"> & {
    deps: Pick<ConsoleServiceDeps, "requestLog">;
  },
): Pick<ServiceImpl<typeof ConsoleService>, "listAppRequestLog" | "getAppRequestLogEntry" | "getAppUsage"> {
  const { authenticate, requireAppRole, sql, invalid, fail, clock, config, deps } = shared;
  const queries = createRequestLogQueries(sql);
  const fresh = () => deps.requestLog?.beforeRead?.() ?? Promise.resolve();
  const environmentRequired = (environment: Parameters<typeof requestedEnvironment>[0]): LoggedEnvironment => {
    const named = requestedEnvironment(environment);
    if (!named) throw invalid("environment", "must be SANDBOX or PRODUCTION");
    return named;
  };
  return {
    async listAppRequestLog(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      const environment = environmentRequired(request.environment);
      const fromMs = Number(request.fromMs) || undefined;
      const toMs = Number(request.toMs) || undefined;
      if (fromMs !== undefined && toMs !== undefined && toMs <= fromMs) throw invalid("to_ms", "must be after from_ms");
      await fresh();
      const rows = await queries.list({
        appId: request.appId,
        environment,
        status: request.status || undefined,
        companyId: Number(request.companyId) || undefined,
        fromMs,
        toMs,
        pathPrefix: request.pathPrefix || undefined,
        method: request.method || undefined,
        correlationId: request.correlationId || undefined,
        limit: request.limit || defaultListLimit,
      });
      return { entries: rows.map((row) => entryOf(row)) };
    },

    async getAppRequestLogEntry(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      await fresh();
      const row = await queries.get(request.appId, Number(request.id));
      if (!row) throw fail("developer.request_log_entry_not_found");
      return {
        entry: entryOf(row, row.error_body ?? ""),
        environment: environmentEnum(row.environment),
      };
    },

    async getAppUsage(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      const environment = environmentRequired(request.environment);
      await fresh();
      const now = clock.now();
      const to = now - (now % 60_000) + 60_000;
      const from = to - usageWindowMs;
      const minutes = await queries.usage(request.appId, environment, new Date(from));
      return {
        limitPerMinute: config.limits.partnerPerMinute,
        fromMs: BigInt(from),
        toMs: BigInt(to),
        minutes: minutes.map((row) => ({
          minuteMs: BigInt(row.minute.getTime()),
          requests: row.requests,
          limited: row.limited,
        })),
      };
    },
  };
}
