// The layering of src/, checked by dependency-cruiser (`npm run lint:deps`, and in .ci/run).
//
//   src/main.ts, src/app.ts, src/app/        command line; the one composition root (src/app/: a file per role and
//                                            per shared piece, src/app.ts their surface)
//   base    runtime, storage, errors, config  shared mechanisms, below everything
//   owners  events < request-log < data < credential < grant < token < webhook < console   one folder per owner of data
//   web     the shared web kit (HTML templates, page shell, stylesheet, messages, CSRF): base only, below edges
//   edges   front, gateway, consent, console-site, internal, demo
//   client  the partner SDK, apart from the server
//   gen/    generated protobuf code, importable from any layer (except the client)
//
// How owners talk: in process, an owner or an edge calls another owner through the plain TypeScript interface of its
// index.ts (functions of plain values; errors from the catalogue; a `sql` argument where a caller's transaction must
// be joined), never through its SQL (queries/) nor its protobuf service; each owner's Connect service is an adapter
// over that interface for the internal port (docs/decisions.md, "How owners talk").
//
// Paths are relative to the repository root. Type-only imports count: they are knowledge too.

/** Owners, lowest first: each may import only the owners before it. */
const OWNERS = ["events", "request-log", "data", "credential", "grant", "token", "webhook", "console"];
const BASE = "^src/(runtime|storage|errors|config)/";
const OWNER = `^src/(${OWNERS.join("|")})/`;
const EDGE = "^src/(front|gateway|consent|console-site|internal|demo)/";
const WEB = "^src/web/";
const ROOT = "^src/((app|main)\\.ts$|app/)";

/** Rule 4, one rule per owner that has owners above it. */
const ownerOrder = OWNERS.slice(0, -1).map((owner, i) => {
  const lower = OWNERS.slice(0, i);
  const higher = OWNERS.slice(i + 1);
  return {
    name: `owner-order-${owner}`,
    comment:
      `Owners are ordered ${OWNERS.join(" < ")}: ${owner} may import ` +
      `${lower.length ? `only ${lower.join(", ")}` : "no other owner"}, never ${higher.join(", ")}.`,
    severity: "error",
    from: { path: `^src/${owner}/` },
    to: { path: `^src/(${higher.join("|")})/` },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A cycle between modules makes load order fragile and the modules one unit; break it.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-circular-folders",
      comment: "Folders form layers, so no two folders may depend on each other, not even through different files.",
      severity: "error",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "base-imports-only-base",
      comment: "runtime, storage, errors and config sit below everything: in src/ they import only each other (and gen/).",
      severity: "error",
      from: { path: BASE },
      to: { path: "^src/", pathNot: BASE },
    },
    {
      name: "web-imports-only-base",
      comment: "The web kit is a leaf both sites import: it may use base (errors' locales, runtime) but no owner or edge.",
      severity: "error",
      from: { path: WEB },
      to: { path: "^src/", pathNot: [BASE, WEB] },
    },
    {
      name: "only-edges-import-web",
      comment: "HTML belongs to the sites: owners and base hold no pages, so they never import the web kit.",
      severity: "error",
      from: { path: [BASE, OWNER] },
      to: { path: WEB },
    },
    {
      name: "owner-imports-no-edge-or-root",
      comment: "Owners hold data and logic; the edges and the composition root (app.ts, app/, main.ts) use them, not the reverse.",
      severity: "error",
      from: { path: OWNER },
      to: { path: [EDGE, ROOT] },
    },
    {
      name: "root-imported-by-no-one",
      comment: "The composition root (src/app.ts, src/app/, src/main.ts) wires everything; nothing in src/ imports it back.",
      severity: "error",
      from: { path: "^src/", pathNot: ROOT },
      to: { path: ROOT },
    },
    ...ownerOrder,
    {
      name: "owner-through-its-index",
      comment:
        "From outside an owner's folder, use only its public surface src/<owner>/index.ts, never a file inside it.",
      severity: "error",
      // $1 is the importer's folder (or top-level file): imports within the same owner are free.
      from: { path: "^src/([^/]+)" },
      to: { path: OWNER, pathNot: ["^src/$1/", "^src/[^/]+/index\\.ts$"] },
    },
    {
      name: "owner-index-keeps-its-queries",
      comment:
        "An owner's SQL is its own: its index.ts offers plain functions and records (run on the caller's sql where a " +
        "transaction must be joined), never the create*Queries factories of its queries/ folder, so no other folder " +
        "writes or reads its tables by another path.",
      severity: "error",
      from: { path: `^src/(${OWNERS.join("|")})/index\\.ts$` },
      to: { path: "^src/$1/queries/" },
    },
    {
      name: "owners-talk-plainly",
      comment:
        "In process, owners call each other through the plain interface of the other's index.ts, never its protobuf: " +
        "no other owner's generated service (so no createInProcessClient of it, and no id or enum mapped to the wire " +
        "and back). An owner's own Connect service, the adapter for the internal port, imports its own; the console's " +
        "answers embed other owners' messages, described by those owners' own adapters (describeApp, ...).",
      severity: "error",
      from: { path: "^src/(events|data|credential|grant|token|webhook|console)/" },
      to: {
        path: "^gen/partnerapi/v1/(credential|grant|token|webhook|console|data)_service_pb\\.ts$",
        pathNot: "^gen/partnerapi/v1/$1_service_pb\\.ts$",
      },
    },
    {
      name: "edges-reach-owners-plainly",
      comment:
        "The gateway, the consent site, the demo and the front reach the credential, grant and token owners through " +
        "their plain interfaces, never their generated services in process (the front reaches the token service only " +
        "through the callers src/app/ hands it). The internal port, the console site and the composition root serve or " +
        "wire protobuf.",
      severity: "error",
      from: { path: "^src/(gateway|consent|demo|front)/" },
      to: { path: "^gen/partnerapi/v1/(credential|grant|token)_service_pb\\.ts$" },
    },
    {
      name: "wire-through-its-index",
      comment:
        "The public JSON wire is one module (src/runtime/wire/): from outside it, import only its index, so each spelling rule has one way in.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/runtime/wire/" },
      to: { path: "^src/runtime/wire/", pathNot: "^src/runtime/wire/index\\.ts$" },
    },
    {
      name: "front-imports-no-owner",
      comment:
        "The /v1 front only transcodes: it knows nothing of tokens or other owners (other edges: see edges-*). It " +
        "hands each answered partner call to the request log, as that owner's PartnerCallRecord (its index only).",
      severity: "error",
      from: { path: "^src/front/" },
      to: { path: OWNER, pathNot: "^src/request-log/index\\.ts$" },
    },
    {
      name: "edges-import-no-other-edge",
      comment: "Edges (front, consent, console-site, internal, demo) are independent of each other; only the composition root (src/app/) wires them together.",
      severity: "error",
      from: { path: "^src/(front|consent|console-site|internal|demo)/" },
      to: { path: EDGE, pathNot: "^src/$1/" },
    },
    {
      name: "gateway-imports-only-the-front-edge",
      comment: "The gateway implements the front's admission hook, so it may import src/front/ but no other edge.",
      severity: "error",
      from: { path: "^src/gateway/" },
      to: { path: "^src/(consent|console-site|internal|demo)/" },
    },
    {
      name: "client-is-self-contained",
      comment: "The partner SDK ships on its own: it imports only src/client/, node: builtins and npm packages.",
      severity: "error",
      from: { path: "^src/client/" },
      // An npm package may resolve outside the project when node_modules is a symlink (a git worktree's).
      to: { pathNot: "^src/client/|(^|/)node_modules/", dependencyTypesNot: ["core"] },
    },
    {
      name: "src-imports-no-test-or-bench",
      comment: "Production code must not depend on tests or benchmarks, which are not shipped.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench)/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import the resolver cannot follow is invisible to every rule above, so it must not exist.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  required: [
    {
      name: "resolution-works",
      comment: "Canary: main.ts imports ./app.js; if .js no longer resolves to .ts every rule above passes vacuously.",
      severity: "error",
      module: { path: "^src/main\\.ts$" },
      to: { path: "^src/app\\.ts$" },
    },
  ],
  options: {
    // Resolve as tsc does (NodeNext): "./x.js" is src/x.ts.
    tsConfig: { fileName: "tsconfig.json" },
    // Keep imports that tsc erases (import type, type-only re-exports): layering is about knowledge.
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    enhancedResolveOptions: {
      // Package subpath exports (e.g. "@bufbuild/protobuf/wkt") resolve as Node resolves them.
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
