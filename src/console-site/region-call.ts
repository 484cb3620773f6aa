// A call of a sandbox merchant's region, as the console's sandbox pages make it (./sandbox-order-desk.ts,
// ./sandbox-menu-desk.ts): the region's DataService through the same callers as the gateway's (in process, or the
// region's data role over gRPC), marked as a sandbox call, in the page's language; a refusal read back as the page
// says it, an internal failure left to the site's error page.
import type { DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { isRegion, type Region } from "../config/regions.js";
import { partnerEnvironmentHeader } from "../data/index.js";
import { entryOf, readServiceError, type ErrorCode } from "../errors/index.js";
import { correlationHeader } from "../runtime/caller-context.js";
import type { IdSource } from "../runtime/ids.js";
import type { ServiceCaller } from "../runtime/service-caller.js";
import type { Locale } from "../web/i18n.js";

/** A refusal of the region's DataService, as the page says it. */
export interface RegionError {
  code: ErrorCode;
  params: Record<string, string>;
  status: number;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: RegionError };

export type RegionCall = <M extends DescMethodUnary>(
  region: string,
  method: M,
  input: MessageInitShape<M["input"]>,
  locale: Locale,
) => Promise<Outcome<MessageShape<M["output"]>>>;

export function createRegionCall(options: { callers: ReadonlyMap<Region, ServiceCaller>; ids: IdSource }): RegionCall {
  return async function call<M extends DescMethodUnary>(
    region: string,
    method: M,
    input: MessageInitShape<M["input"]>,
    locale: Locale,
  ): Promise<Outcome<MessageShape<M["output"]>>> {
    const caller = isRegion(region) ? options.callers.get(region) : undefined;
    if (!caller) return refusal("partner.region_unavailable");
    // A sandbox call, as the gateway marks one: the DataService refuses the sandbox helpers to anything else.
    const headers = new Headers({
      [partnerEnvironmentHeader]: "SANDBOX",
      [correlationHeader]: options.ids.uuid(),
      "accept-language": locale,
    });
    try {
      return { ok: true, value: await caller.call({ method, input, headers }) };
    } catch (cause) {
      const read = readServiceError(cause);
      // An internal failure or this process's database being away: the site's error page answers it.
      if (read.code === "server.internal" || read.code === "server.database_unavailable") throw cause;
      const params = Object.fromEntries(Object.entries(read.params).map(([key, value]) => [key, String(value)]));
      return { ok: false, error: { code: read.code, params, status: entryOf(read.code).status } };
    }
  };
}

export function refusal(code: ErrorCode, params: Record<string, string> = {}): { ok: false; error: RegionError } {
  return { ok: false, error: { code, params, status: entryOf(code).status } };
}
