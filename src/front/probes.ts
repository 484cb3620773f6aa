// The front's probes, answered before any route, limit or authentication: /healthz is liveness (the process
// answers), /readyz readiness (its databases answer; 503 naming those that do not, so a balancer sends traffic
// elsewhere). GET and HEAD (node:http sends HEAD's head only); another method is 405 naming those two, as on the
// web sites.
import { probePaths } from "../runtime/probe-paths.js";
import { databaseRetryAfterSeconds } from "../storage/unavailable.js";
import type { FrontCall } from "./front-call.js";
import { Refusal } from "./refusal.js";

/** What /readyz asks; absent, the front has no /readyz. */
export type Readiness = () => Promise<{ ready: boolean; down: string[] }>;

/** Answers the call when its path is a probe's (true), else leaves it to the routes (false). */
export async function answeredAsProbe(call: FrontCall, readiness: Readiness | undefined): Promise<boolean> {
  const { pathname } = call.url;
  const probe = probePaths.find((known) => known.path === pathname);
  if (!probe || (pathname === "/readyz" && !readiness)) return false;
  call.label("probe", pathname);
  if (!probe.methods.includes(call.request.method ?? "GET")) {
    const allow = probe.methods.join(", ");
    call.response.setHeader("Allow", allow);
    throw Refusal.of({ code: "request.method_not_allowed", params: { allow } });
  }
  if (pathname === "/healthz") {
    call.answer(200, { "Cache-Control": "no-store" }, { status: "ok" });
    return true;
  }
  const { ready, down } = await readiness!();
  if (ready) call.answer(200, { "Cache-Control": "no-store" }, { status: "ready" });
  else
    call.answer(
      503,
      { "Cache-Control": "no-store", "Retry-After": String(databaseRetryAfterSeconds) },
      { status: "not_ready", down },
    );
  return true;
}
