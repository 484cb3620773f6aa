// `npm run build`: compiles the service, src/ and gen/, to JavaScript with source maps (tsc, tsconfig.build.json),
// copies the files the program reads at run time (every file of src/ that is not TypeScript), and writes the stamp
// `npm start` compares against (build-state.mjs). The partner client is a package of its own, built when it is
// packed (scripts/build-client.mjs).
// The build goes to a folder of its own first and replaces the output folder only once it succeeded, so a failed
// or interrupted build never leaves half a program to start.
//   node scripts/build.mjs [--out-dir dist]
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { inputsDigest, stampFileName } from "./build-state.mjs";

const root = resolve(import.meta.dirname, "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

/**
 * Runs tsc on a project with its output redirected (and `options`, more tsc flags); rejects with tsc's own report
 * when it fails.
 */
export function compile(project, outDir, options = []) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [tsc, "-p", join(root, project), "--outDir", outDir, ...options], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`tsc -p ${project} failed:\n${output}`)),
    );
  });
}

export async function build({ outDir }) {
  // The digest is taken before compiling: a file edited during the build leaves the stamp stale, never fresh.
  const digest = inputsDigest(root);
  const building = `${outDir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    await compile("tsconfig.build.json", building);
    // Every file of src/ that tsc does not compile is one the program reads at run time, next to itself
    // (new URL("./...", import.meta.url)): the SQL migrations, the web kit's stylesheet and copy script, the
    // thread-pool preload (node --require). Copied, all of them, so a new asset cannot be forgotten here; the
    // partner client's package (its manifest, README, changelog, and a build of it) is not the program's.
    cpSync(join(root, "src"), join(building, "src"), {
      recursive: true,
      filter: (source) => !source.endsWith(".ts") && !isClientPackage(source),
    });
    writeFileSync(
      join(building, stampFileName),
      JSON.stringify({ inputsDigest: digest, builtAt: new Date().toISOString() }) + "\n",
    );
    rmSync(outDir, { recursive: true, force: true });
    renameSync(building, outDir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
}

const clientPackage = join(root, "src", "client");
function isClientPackage(source) {
  return source === clientPackage || source.startsWith(clientPackage + sep);
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { "out-dir": { type: "string", default: join(root, "dist") } },
    strict: true,
  });
  const outDir = resolve(values["out-dir"]);
  const started = performance.now();
  build({ outDir }).then(
    () => process.stderr.write(`built into ${outDir} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`),
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
    },
  );
}
