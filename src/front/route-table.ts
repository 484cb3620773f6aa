// The route table of the public front, read at start from the google.api.http and partnerapi.v1.route options of
// every RPC: there is no second, hand-written list of routes (DESIGN.md: "The front is a transcoder").
import { getOption, type DescMethodUnary, type DescService } from "@bufbuild/protobuf";
import { http } from "../../gen/google/api/annotations_pb.js";
import { route as routeOption, RouteFamily } from "../../gen/partnerapi/v1/options_pb.js";
import {
  matchPathTemplate,
  parsePathTemplate,
  sharedPrefixLength,
  splitPath,
  type PathTemplate,
} from "./path-template.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The error shape a route answers in (spec, "Errors": three body shapes). */
export type Family = "oauth" | "developer" | "partner";

export interface Route {
  httpMethod: HttpMethod;
  template: PathTemplate;
  service: DescService;
  method: DescMethodUnary;
  family: Family;
  /** A business route: authenticated, limited and routed by the partner gateway. Not the anonymous /.well-known/*. */
  partnerCall: boolean;
  /** Whether the request message is read from the body (`body: "*"`) or from the query string. */
  bodyIsRequest: boolean;
  contentType: string;
  cacheControl: string | undefined;
  /** Status of a successful answer: (partnerapi.v1.route).success_status, 200 when unset (PAR answers 201). */
  successStatus: number;
  /** Partner scope the route needs; empty for non-partner routes. */
  scope: string;
  /** A console route reached without a console session (sign-up, sign-in, ...): (partnerapi.v1.route).session_free. */
  sessionFree: boolean;
  /** A sandbox test helper: the partner gateway refuses production callers (partner.env_mismatch). */
  sandboxOnly: boolean;
}

export type RouteMatch =
  | { kind: "found"; route: Route; pathParams: Record<string, string> }
  | { kind: "method_not_allowed"; allow: HttpMethod[]; family: Family }
  | { kind: "not_found"; family: Family };

export interface RouteTable {
  readonly routes: readonly Route[];
  match(httpMethod: string, pathname: string): RouteMatch;
}

const familyOf: Record<RouteFamily, Family | undefined> = {
  [RouteFamily.UNSPECIFIED]: undefined,
  [RouteFamily.OAUTH]: "oauth",
  [RouteFamily.DEVELOPER]: "developer",
  [RouteFamily.PARTNER]: "partner",
  // Anonymous documents answer errors in the generic API envelope.
  [RouteFamily.WELL_KNOWN]: "partner",
};

/** Builds the table from every annotated unary method of `services`; a malformed annotation stops the start. */
export function createRouteTable(services: readonly DescService[]): RouteTable {
  const routes: Route[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      const rule = getOption(method, http);
      const pattern = rule.pattern;
      if (pattern.case === undefined) continue; // internal-only RPC
      if (method.methodKind !== "unary")
        throw new Error(`${method.parent.typeName}.${method.name}: only unary RPCs can be routed`);
      if (pattern.case === "custom")
        throw new Error(`${method.parent.typeName}.${method.name}: custom HTTP patterns are not supported`);
      if (rule.body !== "" && rule.body !== "*")
        throw new Error(`${method.parent.typeName}.${method.name}: body must be "*" or empty`);
      const options = getOption(method, routeOption);
      const family = familyOf[options.family];
      if (!family) throw new Error(`${method.parent.typeName}.${method.name}: missing (partnerapi.v1.route).family`);
      routes.push({
        httpMethod: pattern.case.toUpperCase() as HttpMethod,
        template: parsePathTemplate(pattern.value),
        service,
        method: method as DescMethodUnary,
        family,
        partnerCall: options.family === RouteFamily.PARTNER,
        bodyIsRequest: rule.body === "*",
        contentType: options.contentType || "application/json",
        cacheControl: options.cacheControl || undefined,
        successStatus: options.successStatus || 200,
        scope: options.scope,
        sessionFree: options.sessionFree,
        sandboxOnly: options.sandboxOnly,
      });
    }
  }
  assertNoDuplicates(routes);
  return { routes, match: (httpMethod, pathname) => matchRoute(routes, httpMethod, pathname) };
}

function matchRoute(routes: readonly Route[], httpMethod: string, pathname: string): RouteMatch {
  const parts = splitPath(pathname);
  const allow: HttpMethod[] = [];
  let family: Family = "partner";
  if (parts) {
    for (const route of routes) {
      const pathParams = matchPathTemplate(route.template, parts);
      if (!pathParams) continue;
      if (route.httpMethod === httpMethod) return { kind: "found", route, pathParams };
      allow.push(route.httpMethod);
      family = route.family;
    }
  }
  if (allow.length > 0) return { kind: "method_not_allowed", allow, family };
  // A path that does not percent-decode (`%FF`, invalid UTF-8) matches no route, but its literal segments still
  // say whose it is: a console path answers in the developer envelope.
  return { kind: "not_found", family: closestFamily(routes, parts ?? pathname.slice(1).split("/")) };
}

/**
 * The family of an unknown path is that of the routes sharing the longest literal prefix with it (so a typo under
 * /v1/oauth/ answers in the OAuth shape); a tie, or nothing beyond "/v1", falls back to the partner envelope.
 */
function closestFamily(routes: readonly Route[], parts: readonly string[]): Family {
  let best = 1; // sharing only "v1" says nothing
  let family: Family | undefined;
  let tie = false;
  for (const route of routes) {
    const shared = sharedPrefixLength(route.template, parts);
    if (shared > best) {
      best = shared;
      family = route.family;
      tie = false;
    } else if (shared === best && family !== undefined && family !== route.family) {
      tie = true;
    }
  }
  return family && !tie ? family : "partner";
}

function assertNoDuplicates(routes: readonly Route[]): void {
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.httpMethod} ${route.template.segments.map((s) => ("literal" in s ? s.literal : "{}")).join("/")}`;
    if (seen.has(key)) throw new Error(`two RPCs map onto ${route.httpMethod} ${route.template.source}`);
    seen.add(key);
  }
}
