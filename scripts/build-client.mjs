// Builds the partner client's package (src/client/package.json, `npm pack` runs this as its prepack): the ES module
// build with its declarations in dist/esm (tsconfig.client.json), and the CommonJS build with its own declarations
// in dist/cjs (the same sources and options, emitted as CommonJS), so `import` and `require` each get JavaScript and
// types of their own format (TypeScript reads a .d.ts as the format of the JavaScript beside it). Source maps carry
// their sources inline: the tarball holds no .ts files for them to point at.
// The build goes to a folder of its own first and replaces dist/ only once both builds succeeded.
//   node scripts/build-client.mjs
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "./build.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const clientPackageDir = join(root, "src", "client");

export async function buildClient() {
  const outDir = join(clientPackageDir, "dist");
  const building = join(clientPackageDir, `dist.building-${process.pid}`);
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    await Promise.all([
      compile("tsconfig.client.json", join(building, "esm")),
      // verbatimModuleSyntax (tsconfig.json) forbids import syntax in a CommonJS output, which is what tsc rewrites here.
      compile("tsconfig.client.json", join(building, "cjs"), [
        "--module",
        "commonjs",
        "--moduleResolution",
        "node10",
        "--verbatimModuleSyntax",
        "false",
      ]),
    ]);
    // The package is "type": "module"; this marks dist/cjs's .js and .d.ts files as CommonJS (Node and TypeScript alike).
    writeFileSync(join(building, "cjs", "package.json"), JSON.stringify({ type: "commonjs" }) + "\n");
    rmSync(outDir, { recursive: true, force: true });
    renameSync(building, outDir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  buildClient().then(
    () =>
      process.stderr.write(
        `built the partner client into ${join(clientPackageDir, "dist")} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      ),
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
    },
  );
}
