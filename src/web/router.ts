// The route table of both web sites: each route a method and a path pattern with named segments
// (`/apps/{app}/requests/{call}`), each segment's shape declared once per site. Matching answers the route and its
// segments, or says whether the path is known with other methods (405 and its Allow header, RFC 9110 §15.5.6)
// or not at all (404): the sites render those answers their own way.

/** The named segments of a matched path, by name. */
export type PathParams = Readonly<Record<string, string>>;

/** The segment names of a path pattern, as a type: `"/apps/{app}/requests/{call}"` gives `"app" | "call"`. */
export type SegmentsOf<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | SegmentsOf<Rest>
  : never;

/** The segments of a path pattern's match, each by its name (the router captures every one). */
export type ParamsOf<Path extends string> = { readonly [Name in SegmentsOf<Path>]: string };

export interface RouteSpec<Handler> {
  method: string;
  /** A path whose `{name}` segments take the shape the site gives that name (its `segments`). */
  path: string;
  handler: Handler;
}

/** A route of the table: `route("GET", "/apps/{app}", handler)`. */
export function route<Handler>(method: string, path: string, handler: Handler): RouteSpec<Handler> {
  return { method, path, handler };
}

export type RouteMatch<Handler> =
  | { kind: "route"; handler: Handler; params: PathParams }
  | { kind: "method-not-allowed"; allow: string }
  | { kind: "not-found" };

export interface Router<Handler> {
  match(method: string, path: string): RouteMatch<Handler>;
  /** Whether some route of the table has this path, whatever its method. */
  knows(path: string): boolean;
}

export interface RouterOptions<Handler> {
  /** The shape of each named segment: a regular expression's source, within one segment, without capturing groups. */
  segments?: Readonly<Record<string, string>>;
  /** A GET route also answers HEAD (the page without its body), and Allow says so. */
  headAsGet?: boolean;
  routes: ReadonlyArray<RouteSpec<Handler>>;
  /**
   * Paths answered before the table with `methods` (a site's probes): known, so any other method that reaches the
   * table gets 405, and Allow names those methods.
   */
  reserved?: ReadonlyArray<{ path: string; methods: readonly string[] }>;
}

/** One path pattern of the table and the methods it answers. */
interface PathEntry<Handler> {
  pattern: RegExp;
  names: string[];
  handlers: Map<string, Handler>;
  /** Methods the site answers before the table on this path (a reserved path's), for Allow. */
  answeredBefore: readonly string[];
}

/** The order methods are listed in an Allow header. */
const methodOrder = ["GET", "HEAD", "POST"];

export function createRouter<Handler>(options: RouterOptions<Handler>): Router<Handler> {
  const segments = options.segments ?? {};
  const entries = new Map<string, PathEntry<Handler>>();
  // Patterns are compiled once; a path that two patterns could match goes to the first declared, as it is read.
  for (const spec of options.routes) {
    let entry = entries.get(spec.path);
    if (!entry) {
      entry = { ...compilePath(spec.path, segments), handlers: new Map(), answeredBefore: [] };
      entries.set(spec.path, entry);
    }
    if (entry.handlers.has(spec.method)) throw new Error(`route declared twice: ${spec.method} ${spec.path}`);
    entry.handlers.set(spec.method, spec.handler);
  }
  for (const { path, methods } of options.reserved ?? [])
    entries.set(path, { ...compilePath(path, segments), handlers: new Map(), answeredBefore: methods });
  const table = [...entries.values()];

  const find = (path: string): { entry: PathEntry<Handler>; params: PathParams } | undefined => {
    for (const entry of table) {
      const found = entry.pattern.exec(path);
      if (found) return { entry, params: Object.fromEntries(entry.names.map((name, i) => [name, found[i + 1]!])) };
    }
    return undefined;
  };

  const allowOf = (entry: PathEntry<Handler>): string => {
    const methods = new Set([...entry.handlers.keys(), ...entry.answeredBefore]);
    if (options.headAsGet && methods.has("GET")) methods.add("HEAD");
    const rank = (method: string) => (methodOrder.includes(method) ? methodOrder.indexOf(method) : methodOrder.length);
    return [...methods].sort((a, b) => rank(a) - rank(b)).join(", ");
  };

  return {
    match(method, path) {
      const found = find(path);
      if (!found) return { kind: "not-found" };
      const handler =
        found.entry.handlers.get(method) ??
        (options.headAsGet && method === "HEAD" ? found.entry.handlers.get("GET") : undefined);
      if (handler === undefined) return { kind: "method-not-allowed", allow: allowOf(found.entry) };
      return { kind: "route", handler, params: found.params };
    },
    knows: (path) => find(path) !== undefined,
  };
}

/** `/organizations/{org}/apps` as an anchored expression, its segments captured in the order they appear. */
function compilePath(path: string, segments: Readonly<Record<string, string>>): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{[a-z][A-Za-z]*\})/)
    .map((part) => {
      if (!part.startsWith("{")) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
      const name = part.slice(1, -1);
      const shape = segments[name];
      if (shape === undefined) throw new Error(`route ${path}: no shape declared for the segment {${name}}`);
      names.push(name);
      return `(${shape})`;
    })
    .join("");
  return { pattern: new RegExp(`^${source}$`), names };
}
