// What a clone must hold for a partner to follow the documentation alone: every relative link of the README, docs/
// and the example resolves inside the repository (file and heading); the README stays a short lead that links every
// page of docs/; docs/configuration.md documents every variable the configuration reads, and nothing else;
// docs/endpoints.md lists every annotated route with its RPC, and nothing else; the API guide names every console
// route and every staff-only RPC of the internal port; and the LICENSE is MIT for "the partner-api authors", 2026.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { getOption } from "@bufbuild/protobuf";
import { http } from "../../gen/google/api/annotations_pb.js";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { WebhookService } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { tracingEnvironmentNames } from "../../src/runtime/tracing.js";
import { environmentNames } from "../../src/config/config.js";
import { testClockVariable } from "../../src/runtime/test-clock.js";
import { admissionOf } from "../../src/internal/access-policy.js";

const Files = suite("docs/repository-files");
const root = resolve(import.meta.dirname, "../..");
const read = (path: string) => readFile(join(root, path), "utf8");

async function markdownFiles(): Promise<string[]> {
  const inFolder = async (folder: string): Promise<string[]> =>
    (await readdir(join(root, folder), { recursive: true }))
      .filter((name) => name.endsWith(".md"))
      .map((name) => join(folder, name));
  return ["README.md", ...(await inFolder("docs")), ...(await inFolder("examples"))];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slugOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

async function anchorsOf(path: string): Promise<Set<string>> {
  const text = (await read(path)).replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slugOf(match[1]!)));
}

Files(
  "every relative link of the README, docs/ and examples/ points at a file (and heading) inside the repository",
  async () => {
    const files = await markdownFiles();
    assert.ok(
      files.includes("docs/api-guide.md") &&
        files.includes("docs/console-walkthrough.md") &&
        files.includes("examples/partner-app/README.md"),
    );
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      const text = (await read(file)).replace(/```[\s\S]*?```/g, "");
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        checked += 1;
        const [path, anchor] = target.split("#");
        const resolved = path ? resolve(root, dirname(file), path) : join(root, file);
        const inside = relative(root, resolved);
        if (inside.startsWith("..")) broken.push(`${file}: ${target} leaves the repository`);
        else if (!existsSync(resolved)) broken.push(`${file}: ${target} does not exist`);
        else if (anchor && resolved.endsWith(".md") && !(await anchorsOf(inside)).has(anchor))
          broken.push(`${file}: ${target} names no heading`);
      }
    }
    assert.equal(broken, []);
    assert.ok(checked >= 20, `only ${checked} links checked`);
    assert.not.match(await read("README.md"), "../shared");
  },
);

Files("the README leads: at most about 200 lines, and it links every page of docs/", async () => {
  const readme = await read("README.md");
  const lines = readme.split("\n").length;
  assert.ok(lines <= 200, `the README has ${lines} lines: move reference material to a page under docs/ and link it`);
  const pages = (await readdir(join(root, "docs")))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  assert.ok(pages.length >= 10, `${pages.length} pages under docs/`);
  assert.equal(
    pages.filter((page) => !readme.includes(`](${page}`)),
    [],
  );
});

/**
 * The variables a row of the configuration page documents: the backticked names of its first cell, where `_US`
 * after `REGION_DATABASE_URL_UK` stands for `REGION_DATABASE_URL_US`.
 */
function documentedNames(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const [row, cell] of markdown.matchAll(/^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \|.*$/gm)) {
    let full = "";
    for (const [, name] of cell!.matchAll(/`([A-Z_]+)`/g)) {
      full = name!.startsWith("_") ? full.replace(/_[A-Z]+$/, name!) : name!;
      rows.set(full, row);
    }
  }
  return rows;
}

Files(
  "docs/configuration.md: every variable the configuration reads has a row with its default, and every row is read",
  async () => {
    const page = await read("docs/configuration.md");
    const service = page.slice(page.indexOf("## The service's variables"), page.indexOf("## Outside the service"));
    assert.ok(
      service.length > 1000,
      "the page has its sections: ## The service's variables, then ## Outside the service",
    );
    const rows = documentedNames(service);
    // NODE_ENV is read by the production checks, UV_THREADPOOL_SIZE by src/runtime/thread-pool.cjs before the program,
    // TEST_CLOCK_OFFSET_FILE by the program (src/runtime/test-clock.ts) beside its configuration.
    // OTEL_* by src/runtime/tracing.ts (and the exporter) beside the configuration.
    const readByTheService = [
      ...environmentNames,
      ...tracingEnvironmentNames,
      "NODE_ENV",
      "UV_THREADPOOL_SIZE",
      testClockVariable,
    ];
    assert.equal(
      readByTheService.filter((name) => !rows.has(name)),
      [],
      "variables without a row",
    );
    assert.equal(
      [...rows.keys()].filter((name) => !readByTheService.includes(name)),
      [],
      "rows of variables nothing reads",
    );
    const withoutDefault = [...rows]
      .filter(([, row]) => (row.split(" | ")[1] ?? "").trim() === "")
      .map(([name]) => name);
    assert.equal(withoutDefault, [], "rows without a default");
  },
);

Files("docs/endpoints.md lists every annotated route with its RPC, and no route that is not one", async () => {
  const page = await read("docs/endpoints.md");
  // Path variables are named on the wire by their JSON names ({organization_id} is {organizationId}).
  const lowerCamel = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_, name: string) => `{${name.replace(/_(\w)/g, (__, c: string) => c.toUpperCase())}}`);
  const annotated = [
    TokenService,
    DataService,
    ConsoleService,
    CredentialService,
    GrantService,
    WebhookService,
  ].flatMap((service) =>
    service.methods.flatMap((method) => {
      const pattern = getOption(method, http).pattern;
      if (pattern.case === undefined || pattern.case === "custom") return [];
      return [
        `| ${pattern.case.toUpperCase()} | \`${lowerCamel(pattern.value)}\` | \`${service.name}.${method.name}\``,
      ];
    }),
  );
  assert.ok(annotated.length >= 50, `${annotated.length} annotated routes`);
  assert.equal(
    annotated.filter((row) => !page.includes(row)),
    [],
    "routes missing from docs/endpoints.md",
  );
  const listed = [
    ...page.matchAll(/^\| (?:GET|POST|PUT|PATCH|DELETE) \| `[^`]+` \| `[A-Z]\w*Service\.[A-Z]\w*`/gm),
  ].map((match) => match[0]);
  assert.equal(
    listed.filter((row) => !annotated.includes(row)),
    [],
    "rows of docs/endpoints.md that no RPC serves",
  );
});

Files("the API guide names every console route of docs/endpoints.md and every staff-only RPC", async () => {
  const guide = await read("docs/api-guide.md");
  const routes = [
    ...(await read("docs/endpoints.md")).matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `(\/v1\/console\/[^`]+)` \|/gm),
  ].map((match) => `${match[1]} ${match[2]}`);
  assert.ok(routes.length >= 35, `${routes.length} console routes in docs/endpoints.md`);
  assert.equal(
    routes.filter((route) => !guide.includes(`\`${route}\``)),
    [],
  );
  const staffOnly = [ConsoleService, CredentialService, GrantService, TokenService].flatMap((service) =>
    service.methods
      .filter((method) => {
        const admission = admissionOf(service.typeName, method.name);
        return admission !== "anonymous" && admission.length === 1 && admission[0] === "staff";
      })
      .map((method) => `${service.typeName}/${method.name}`),
  );
  assert.equal(staffOnly.sort(), [
    "partnerapi.v1.ConsoleService/DecideProgramApplication",
    "partnerapi.v1.ConsoleService/ListProgramApplications",
    "partnerapi.v1.ConsoleService/PublishAgreementVersion",
    "partnerapi.v1.ConsoleService/SetAccountSuspended",
    "partnerapi.v1.CredentialService/ApproveApp",
    "partnerapi.v1.CredentialService/RejectApp",
  ]);
  assert.equal(
    staffOnly.filter((rpc) => !guide.includes(`\`${rpc}\``)),
    [],
  );
});

Files("LICENSE: the MIT license, copyright 2026 the partner-api authors", async () => {
  const license = await read("LICENSE");
  assert.ok(
    license.startsWith(
      "MIT License\n\nCopyright (c) 2026 the partner-api authors\n\nPermission is hereby granted, free of charge,",
    ),
  );
  assert.match(license, 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  assert.match(await read("README.md"), "[`LICENSE`](LICENSE)");
});

Files("npm run pack:client leaves its tarball where .gitignore covers it, never in the tree", async () => {
  const manifest = JSON.parse(await read("package.json")) as { scripts: Record<string, string> };
  const destination = /--pack-destination ([^\s&]+)/.exec(manifest.scripts["pack:client"] ?? "")?.[1];
  assert.ok(destination, "pack:client names its destination");
  // Relative to src/client, where npm pack runs.
  const folder = relative(root, join(root, "src/client", destination));
  assert.is(folder, "dist-packages");
  const ignored = spawnSync("git", ["check-ignore", "-q", `${folder}/partner-api-client-1.0.0.tgz`], { cwd: root });
  assert.is(ignored.status, 0, `${folder}/ is git-ignored`);
});

Files.run();
