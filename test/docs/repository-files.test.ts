// What a clone must hold for a partner to follow the documentation alone (issue 18): every relative link of the
// README, docs/ and the example resolves inside the repository (file and heading), the API guide names every console
// route and every staff-only RPC of the internal port, and the LICENSE is MIT for "the partner-api authors", 2026.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { admissionOf } from "../../src/internal/access-policy.js";

const Files = suite("docs/repository-files");
const root = resolve(import.meta.dirname, "../..");
const read = (path: string) => readFile(join(root, path), "utf8");

async function markdownFiles(): Promise<string[]> {
  const inFolder = async (folder: string): Promise<string[]> =>
    (await readdir(join(root, folder), { recursive: true })).filter((name) => name.endsWith(".md")).map((name) => join(folder, name));
  return ["README.md", ...(await inFolder("docs")), ...(await inFolder("examples"))];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slugOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");

async function anchorsOf(path: string): Promise<Set<string>> {
  const text = (await read(path)).replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slugOf(match[1]!)));
}

Files("every relative link of the README, docs/ and examples/ points at a file (and heading) inside the repository", async () => {
  const files = await markdownFiles();
  assert.ok(files.includes("docs/api-guide.md") && files.includes("docs/console-walkthrough.md") && files.includes("examples/partner-app/README.md"));
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
      else if (anchor && resolved.endsWith(".md") && !(await anchorsOf(inside)).has(anchor)) broken.push(`${file}: ${target} names no heading`);
    }
  }
  assert.equal(broken, []);
  assert.ok(checked >= 20, `only ${checked} links checked`);
  assert.not.match(await read("README.md"), "../shared");
});

Files("the API guide names every console route of the README's table and every staff-only RPC", async () => {
  const guide = await read("docs/api-guide.md");
  const routes = [...(await read("README.md")).matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `(\/v1\/console\/[^`]+)` \|/gm)].map((match) => `${match[1]} ${match[2]}`);
  assert.ok(routes.length >= 35, `${routes.length} console routes in the README`);
  assert.equal(routes.filter((route) => !guide.includes(`\`${route}\``)), []);
  const staffOnly = [ConsoleService, CredentialService, GrantService, TokenService].flatMap((service) =>
    service.methods.filter((method) => {
      const admission = admissionOf(service.typeName, method.name);
      return admission !== "anonymous" && admission.length === 1 && admission[0] === "staff";
    }).map((method) => `${service.typeName}/${method.name}`),
  );
  assert.equal(staffOnly.sort(), [
    "partnerapi.v1.ConsoleService/DecideProgramApplication",
    "partnerapi.v1.ConsoleService/ListProgramApplications",
    "partnerapi.v1.ConsoleService/PublishAgreementVersion",
    "partnerapi.v1.ConsoleService/SetAccountSuspended",
    "partnerapi.v1.CredentialService/ApproveApp",
    "partnerapi.v1.CredentialService/RejectApp",
  ]);
  assert.equal(staffOnly.filter((rpc) => !guide.includes(`\`${rpc}\``)), []);
});

Files("LICENSE: the MIT license, copyright 2026 the partner-api authors", async () => {
  const license = await read("LICENSE");
  assert.ok(license.startsWith("MIT License\n\nCopyright (c) 2026 the partner-api authors\n\nPermission is hereby granted, free of charge,"));
  assert.match(license, 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  assert.match(await read("README.md"), "[`LICENSE`](LICENSE)");
});

Files.run();
