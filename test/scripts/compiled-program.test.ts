// `npm run build` and the compiled program: the build (into a folder of its own inside the project, where
// node_modules and package.json are found as from dist/) holds the server with source maps, the SQL migrations it
// reads at run time, the client with declarations and a fresh stamp; the compiled main starts on embedded defaults,
// answers /readyz 200 and exits 0 on SIGTERM; with --enable-source-maps its stack traces name the .ts sources.
import { execFile, spawn } from "node:child_process";
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { build } from "../../scripts/build.mjs";
import { buildState } from "../../scripts/build-state.mjs";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";

const CompiledProgram = suite("scripts/compiled-program");

const root = fileURLToPath(new URL("../../", import.meta.url));
const outDir = join(root, `.build-test-${process.pid}`);

CompiledProgram.before(async () => {
  await build({ outDir });
});

CompiledProgram.after(async () => {
  await rm(outDir, { recursive: true, force: true });
});

CompiledProgram(
  "the build holds the program with source maps, its migrations, the client with declarations, a fresh stamp",
  async () => {
    for (const file of [
      "src/main.js",
      "src/main.js.map",
      "src/internal/new-credential.js",
      "gen/partnerapi/v1/token_service_pb.js",
      "src/storage/migrations/control/0001_initial.sql",
      "src/storage/migrations/region/0001_initial.sql",
      "client/index.js",
      "client/index.d.ts",
    ]) {
      await access(join(outDir, file)).catch(() => assert.unreachable(`${file} is not in the build`));
    }
    const map = JSON.parse(await readFile(join(outDir, "src", "main.js.map"), "utf8")) as { sources: string[] };
    assert.equal(map.sources, ["../../src/main.ts"]);
    assert.is(buildState(root, outDir), "fresh");
  },
);

CompiledProgram(
  "the compiled main starts, answers /readyz 200 and its version, and exits 0 after SIGTERM",
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "partner-api-compiled-"));
    const databaseUrl = await freshDatabaseUrl();
    const child = spawn(process.execPath, ["--enable-source-maps", join(outDir, "src", "main.js")], {
      env: {
        PATH: process.env["PATH"] ?? "",
        HOST: "127.0.0.1",
        PORT: "0",
        AUTH_PORT: "0",
        GRPC_PORT: "0",
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl ?? "",
        SHUTDOWN_DRAIN_SECONDS: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const line = (message: string) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no "${message}" line; stdout: ${stdout} stderr: ${stderr}`)),
          120_000,
        );
        const check = () => {
          const found = stdout.split("\n").find((text) => text.includes(`"msg":"${message}"`));
          if (!found) return;
          clearTimeout(timer);
          child.stdout.off("data", check);
          resolve(JSON.parse(found) as Record<string, unknown>);
        };
        child.stdout.on("data", check);
        check();
      });
    try {
      const ready = await line("partner API ready");
      const readiness = await fetch(`${ready["front"]}/readyz`);
      assert.is(readiness.status, 200);
      assert.equal(await readiness.json(), { status: "ready" });
      const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
      const openapi = (await (await fetch(`${ready["front"]}/v1/openapi.json`)).json()) as {
        info: { version: string };
      };
      assert.is(openapi.info.version, manifest.version);
      child.kill("SIGTERM");
      await line("stopped");
      assert.is(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      if (databaseUrl) await dropDatabase(databaseUrl);
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);

CompiledProgram("with --enable-source-maps a compiled module's stack trace names its .ts source", async () => {
  const config = pathToFileURL(join(outDir, "src", "config", "config.js")).href;
  const script = `const { loadConfig } = await import(${JSON.stringify(config)});
try { loadConfig({ PORT: "eighty" }); } catch (error) { process.stdout.write(error.stack); }`;
  const stack = (withMaps: boolean) =>
    new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [...(withMaps ? ["--enable-source-maps"] : []), "--input-type=module", "-e", script],
        { timeout: 60_000 },
        (error, out) => (error ? reject(error) : resolve(out)),
      ),
    );
  const mapped = await stack(true);
  assert.match(mapped, "invalid configuration: PORT");
  assert.match(mapped, /src\/config\/config\.ts:\d+:\d+/);
  assert.not.match(await stack(false), /config\.ts/);
});

CompiledProgram.run();
