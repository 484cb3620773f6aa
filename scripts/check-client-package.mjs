// `npm run test:client-package` (a step of .ci/run): the partner client as a partner gets it. Packs src/client with
// `npm pack` (its prepack builds), checks the tarball (its file list, publint, @arethetypeswrong/cli), installs it
// from the file in an empty temporary project with npm and the registry (nothing copied or linked by hand), starts
// the service with `npm start -- --demo` on free ports, and has three consumers each make a real call with it: a
// plain Node ES module script (import), a CommonJS script (require), and a TypeScript project with
// `moduleResolution: nodenext` that tsc type-checks and compiles (and that rejects a misuse of the types). Each
// call's answer is compared with the same call made with fetch. Exits 1 on the first failure, saying which.
//   node scripts/check-client-package.mjs [--keep]    (--keep leaves the temporary project for a look)
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import semver from "semver";
import { freePort } from "./free-port.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const clientDir = join(root, "src", "client");
const bin = (name) => join(root, "node_modules", ".bin", name);
const { values: flags } = parseArgs({ options: { keep: { type: "boolean", default: false } } });

const step = (text) => process.stdout.write(`--- ${text}\n`);

/** Runs a command to its end; rejects with its output when it exits non-zero (or after `timeoutMs`). */
function run(command, args, { cwd, env, timeoutMs = 300_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    execFile(
      command,
      args,
      { cwd, env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${command} ${args.join(" ")} (in ${cwd}) failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolvePromise({ stdout, stderr });
      },
    );
  });
}

/** The files a partner's install needs, and only those: the manifest, README, changelog, both builds. */
function checkFileList(files) {
  const unexpected = files.filter(
    (path) =>
      !["package.json", "README.md", "CHANGELOG.md", "dist/cjs/package.json"].includes(path) &&
      !/^dist\/(esm|cjs)\/[a-z-]+\.(js|d\.ts|js\.map)$/.test(path),
  );
  assert.deepEqual(unexpected, [], "files in the tarball that a partner does not need");
  for (const needed of [
    "README.md",
    "CHANGELOG.md",
    "dist/esm/index.js",
    "dist/esm/index.d.ts",
    "dist/cjs/index.js",
    "dist/cjs/index.d.ts",
    "dist/cjs/package.json",
  ]) {
    assert.ok(files.includes(needed), `the tarball lacks ${needed}`);
  }
}

/** `npm start -- --demo` on free ports and a data folder of its own; resolves once it is ready, with demo.json. */
async function startService(work) {
  const [port, authPort, consolePort] = [await freePort(), await freePort(), await freePort()];
  const dataDir = join(work, "service-data");
  const child = spawn("npm", ["start", "--", "--demo"], {
    cwd: root,
    detached: true, // its own process group: npm and the node it starts stop together
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      AUTH_PORT: String(authPort),
      CONSOLE_PORT: String(consolePort),
      GRPC_PORT: "0",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const stop = () =>
    new Promise((resolveStop) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
      child.once("exit", () => resolveStop());
      process.kill(-child.pid, "SIGTERM");
      setTimeout(
        () => child.exitCode === null && child.signalCode === null && process.kill(-child.pid, "SIGKILL"),
        20_000,
      ).unref();
    });
  await new Promise((resolveReady, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the service was not ready within 5 minutes:\n${output}`)),
      300_000,
    );
    const watch = (chunk) => {
      output += chunk;
      if (output.includes("partner API ready")) {
        clearTimeout(timer);
        resolveReady();
      }
    };
    child.stdout.on("data", watch);
    child.stderr.on("data", watch);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before it was ready:\n${output}`));
    });
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  const demo = JSON.parse(await readFile(join(dataDir, "demo.json"), "utf8"));
  return { demo, stop };
}

/** The call every consumer makes, made with fetch: a sandbox token (POST /v1/token), then GET /v1/items?limit=2. */
async function expectedItems(settings) {
  const token = await fetch(new URL("v1/token", settings.BASE_URL), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_id: settings.CLIENT_ID,
      client_secret: settings.CLIENT_SECRET,
      merchant_id: Number(settings.MERCHANT_ID),
    }),
  });
  assert.equal(token.status, 200, "POST /v1/token with the demo's sandbox pair");
  const { access_token: accessToken, api_base_url: apiBaseUrl } = await token.json();
  const items = await fetch(new URL("items?limit=2", apiBaseUrl), {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  assert.equal(items.status, 200, "GET /v1/items with the sandbox token");
  const page = await items.json();
  assert.ok(page.items.length > 0, "the demo's sandbox merchant has items");
  return page.items;
}

// The consumers: the same call, from each kind of project. They print the page's items as JSON.
const esmScript = `import { createPartnerClient, PartnerApiError } from "@partner-api/client";
const { BASE_URL, CLIENT_ID, CLIENT_SECRET, MERCHANT_ID } = process.env;
const client = createPartnerClient({ baseUrl: BASE_URL, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
await client.connectSandbox(Number(MERCHANT_ID));
const page = await client.merchant(Number(MERCHANT_ID)).items.list({ limit: 2 });
process.stdout.write(JSON.stringify({ items: page.items, errorClass: typeof PartnerApiError }));
`;
const cjsScript = `const { createPartnerClient, PartnerApiError } = require("@partner-api/client");
const { BASE_URL, CLIENT_ID, CLIENT_SECRET, MERCHANT_ID } = process.env;
async function main() {
  const client = createPartnerClient({ baseUrl: BASE_URL, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  await client.connectSandbox(Number(MERCHANT_ID));
  const page = await client.merchant(Number(MERCHANT_ID)).items.list({ limit: 2 });
  process.stdout.write(JSON.stringify({ items: page.items, errorClass: typeof PartnerApiError }));
}
main().catch((error) => { console.error(error); process.exitCode = 1; });
`;
const tsApp = `import { createPartnerClient, PartnerApiError, type Item, type PartnerClientOptions } from "@partner-api/client";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(\`\${name} is not set\`);
  return value;
};
const options: PartnerClientOptions = { baseUrl: env("BASE_URL"), clientId: env("CLIENT_ID"), clientSecret: env("CLIENT_SECRET") };
const client = createPartnerClient(options);
const merchantId = Number(env("MERCHANT_ID"));
try {
  await client.connectSandbox(merchantId);
  const page = await client.merchant(merchantId).items.list({ limit: 2 });
  const items: Item[] = page.items;
  process.stdout.write(JSON.stringify({ items, errorClass: typeof PartnerApiError }));
} catch (error) {
  if (error instanceof PartnerApiError) process.stderr.write(\`\${error.status} \${error.code ?? "(no code)"}\\n\`);
  throw error;
}
`;
// The same package seen from a CommonJS module of the TypeScript project (its require-side declarations).
const tsRequire = `import client = require("@partner-api/client");
export const create: typeof client.createPartnerClient = client.createPartnerClient;
export const limits: client.RetryLimits = client.defaultRetryLimits;
`;
const tsMisuse = `import { createPartnerClient } from "@partner-api/client";
export const client = createPartnerClient({ baseUrl: 42 });
`;

async function main() {
  const work = await mkdtemp(join(tmpdir(), "partner-client-package-"));
  let service;
  try {
    const clientManifest = JSON.parse(await readFile(join(clientDir, "package.json"), "utf8"));
    const rootManifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
    step(`npm pack ${clientManifest.name}@${clientManifest.version} (prepack builds it)`);
    // The runtime dependencies (jose for tokens, standardwebhooks for verifying webhooks), each in a range that
    // holds the version the service and the tests run with.
    assert.deepEqual(
      Object.keys(clientManifest.dependencies),
      ["jose", "standardwebhooks"],
      "the client's runtime dependencies",
    );
    for (const name of Object.keys(clientManifest.dependencies)) {
      // The service itself needs jose; standardwebhooks only the client and the tests (a dev dependency of the root).
      const rootVersion = rootManifest.dependencies[name] ?? rootManifest.devDependencies[name];
      assert.ok(
        semver.satisfies(rootVersion, clientManifest.dependencies[name]),
        `${name} ${rootVersion} (root) is outside the client's range ${clientManifest.dependencies[name]}`,
      );
    }
    const packed = JSON.parse(
      (await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: clientDir })).stdout,
    );
    const tarball = join(work, packed[0].filename);
    checkFileList(packed[0].files.map((file) => file.path));
    process.stdout.write(`${packed[0].filename}: ${packed[0].files.length} files, ${packed[0].size} bytes\n`);

    step("publint (strict: warnings fail)");
    process.stdout.write((await run(bin("publint"), ["run", tarball, "--strict"], { cwd: work })).stdout);
    step("@arethetypeswrong/cli (every resolution: node10, node16 from CJS and ESM, bundler)");
    process.stdout.write((await run(bin("attw"), [tarball, "--format", "table-flipped"], { cwd: work })).stdout);

    step("npm install of the tarball in an empty project (from the registry)");
    const project = join(work, "a-partner-app");
    await mkdir(project);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "a-partner-app", version: "1.0.0", private: true, type: "module" }, null, 2) + "\n",
    );
    await run("npm", ["install", "--no-audit", "--no-fund", tarball], { cwd: project });
    // What installing the client pulls in: itself, jose, and standardwebhooks with its two dependencies.
    const installed = (await readdir(join(project, "node_modules"))).filter((name) => !name.startsWith("."));
    assert.deepEqual(
      installed.sort(),
      ["@partner-api", "@stablelib", "fast-sha256", "jose", "standardwebhooks"],
      "packages installed with the client",
    );
    await run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--save-dev",
        `typescript@${rootManifest.devDependencies.typescript}`,
        `@types/node@${rootManifest.devDependencies["@types/node"]}`,
      ],
      { cwd: project },
    );

    step("npm start -- --demo (free ports, a data folder of its own)");
    service = await startService(work);
    const settings = {
      BASE_URL: service.demo.baseUrl,
      CLIENT_ID: service.demo.apps.full.sandbox.clientId,
      CLIENT_SECRET: service.demo.apps.full.sandbox.clientSecret,
      MERCHANT_ID: String(service.demo.merchants.sandbox[0].companyId),
    };
    const expected = { items: await expectedItems(settings), errorClass: "function" };
    const consumer = async (label, args) => {
      step(label);
      const { stdout } = await run(process.execPath, args, { cwd: project, env: settings, timeoutMs: 60_000 });
      assert.deepEqual(JSON.parse(stdout), expected, `${label}: the answer differs from the same call made with fetch`);
      process.stdout.write(`${label}: ${expected.items.length} items, as fetch sees them\n`);
    };

    await writeFile(join(project, "esm.mjs"), esmScript);
    await consumer("plain Node, ES module (import)", ["esm.mjs"]);
    await writeFile(join(project, "cjs.cjs"), cjsScript);
    await consumer("plain Node, CommonJS (require)", ["cjs.cjs"]);

    step("TypeScript, moduleResolution nodenext: tsc type-checks and compiles the project");
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      strict: true,
      types: ["node"],
      skipLibCheck: false,
      outDir: "out",
      rootDir: "src",
    };
    await mkdir(join(project, "src"));
    await writeFile(join(project, "src", "app.ts"), tsApp);
    await writeFile(join(project, "src", "required.cts"), tsRequire);
    await writeFile(join(project, "src", "misuse.ts"), tsMisuse);
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions, files: ["src/app.ts", "src/required.cts"] }, null, 2),
    );
    await writeFile(
      join(project, "tsconfig.misuse.json"),
      JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files: ["src/misuse.ts"] }, null, 2),
    );
    const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
    await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project });
    await consumer("TypeScript (nodenext), compiled", ["out/app.js"]);
    // The declarations are real types, not any: a wrong option type does not compile.
    const misuse = await run(process.execPath, [tsc, "-p", "tsconfig.misuse.json"], { cwd: project }).then(
      () => assert.fail("tsc accepted createPartnerClient({ baseUrl: 42 })"),
      (error) => error.message,
    );
    assert.match(misuse, /src\/misuse\.ts\(2,45\): error TS2322: Type 'number' is not assignable to type 'string'\./);
    process.stdout.write("a misuse of the types is refused (TS2322)\n");
    process.stdout.write(
      `\nthe partner client package installs and works: ${clientManifest.name}@${clientManifest.version}\n`,
    );
  } finally {
    await service?.stop();
    if (flags.keep) process.stdout.write(`kept ${work}\n`);
    else await rm(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`client package check failed: ${error.message}\n`);
  process.exitCode = 1;
});
