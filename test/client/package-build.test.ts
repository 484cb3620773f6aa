// `partner-api/client` as partners install it: the client built to JavaScript with declarations (npm run build), in
// a consumer folder of its own (node_modules/partner-api holding package.json and dist/client only, and jose, its
// one runtime dependency). Plain Node 20
// imports it (no tsx, no TypeScript source) and calls it; TypeScript (NodeNext) type-checks a program using it and
// rejects one that misuses it, so the declarations are real types, not `any`.
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { build } from "../../scripts/build.mjs";

const PackageBuild = suite("client/package-build");

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
let consumer = "";

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, args, { cwd: consumer, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    ),
  );
}

PackageBuild.before(async () => {
  consumer = await mkdtemp(join(tmpdir(), "partner-api-consumer-"));
  const installed = join(consumer, "node_modules", "partner-api");
  await mkdir(installed, { recursive: true });
  await build({ outDir: join(installed, "dist"), clientOnly: true });
  await copyFile(join(root, "package.json"), join(installed, "package.json"));
  // Its one runtime dependency, beside it as npm would install it (the client reads JWTs with jose).
  await symlink(join(root, "node_modules", "jose"), join(consumer, "node_modules", "jose"), "dir");
  await writeFile(join(consumer, "package.json"), JSON.stringify({ name: "a-partner-app", private: true, type: "module" }));
});

PackageBuild.after(async () => {
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

PackageBuild("plain Node imports partner-api/client from the build and calls it", async () => {
  const script = `
import { createAuthorizationRequest, createPartnerClient, PartnerApiError } from "partner-api/client";
const pending = await createAuthorizationRequest({ authUrl: "https://auth.example.com", clientId: "lp_app_pk1", redirectUri: "https://app.example.com/cb" });
const sent = [];
const client = createPartnerClient({
  baseUrl: "https://api.example.com",
  apiKey: "lp_ak_example",
  fetch: async (url, init) => {
    sent.push({ url: String(url), apiKey: new Headers(init.headers).get("x-api-key") });
    return new Response(JSON.stringify({ stores: [{ id: 1, name: "High Street" }] }), { status: 200, headers: { "content-type": "application/json" } });
  },
});
const page = await client.company(900000001).stores.list({ limit: 1 });
process.stdout.write(JSON.stringify({
  authorize: new URL(pending.url).searchParams.get("code_challenge_method"),
  verifierLength: pending.codeVerifier.length,
  page, sent,
  errorClass: typeof PartnerApiError,
}));`;
  const result = await run(["--input-type=module", "-e", script]);
  assert.is(result.stderr, "");
  assert.is(result.code, 0);
  assert.equal(JSON.parse(result.stdout), {
    authorize: "S256",
    verifierLength: 43,
    page: { stores: [{ id: 1, name: "High Street" }] },
    sent: [{ url: "https://api.example.com/v1/stores?companyId=900000001&limit=1", apiKey: "lp_ak_example" }],
    errorClass: "function",
  });
});

PackageBuild("TypeScript type-checks a program against the declarations, and rejects a misuse", async () => {
  const compilerOptions = { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2023", "DOM"], types: [], strict: true, noEmit: true };
  await writeFile(
    join(consumer, "app.ts"),
    `import { createPartnerClient, PartnerApiError, type Item, type PartnerClientOptions } from "partner-api/client";
const options: PartnerClientOptions = { baseUrl: "https://api.example.com", clientId: "lp_app_pk1" };
const client = createPartnerClient(options);
export async function names(merchantId: number): Promise<string[]> {
  try {
    const page = await client.merchant(merchantId).items.list({ limit: 10 });
    return page.items.map((item: Item) => item.name);
  } catch (error) {
    if (error instanceof PartnerApiError) return [String(error.status)];
    throw error;
  }
}
`,
  );
  await writeFile(join(consumer, "misuse.ts"), `import { createPartnerClient } from "partner-api/client";\nexport const client = createPartnerClient({ baseUrl: 42 });\n`);
  await writeFile(join(consumer, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["app.ts"] }));
  await writeFile(join(consumer, "tsconfig.misuse.json"), JSON.stringify({ compilerOptions, files: ["misuse.ts"] }));

  const good = await run([tsc, "-p", "tsconfig.json"]);
  assert.is(good.stdout, "", good.stdout);
  assert.is(good.code, 0);
  const misuse = await run([tsc, "-p", "tsconfig.misuse.json"]);
  assert.is(misuse.code, 2, misuse.stdout);
  assert.match(misuse.stdout, "misuse.ts(2,45): error TS2322: Type 'number' is not assignable to type 'string'.", misuse.stdout);
});

PackageBuild.run();
