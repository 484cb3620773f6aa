// `npm start` and `npm run credential`: run an entry point of the compiled program (dist/), building it first when the
// build is missing or older than the sources (build-state.mjs), so `npm install && npm start` still does all the
// set-up on a fresh machine. package.json runs this file with --enable-source-maps: stack traces name the .ts
// sources. The entry is imported in this process (no second process to forward signals to).
//   node --enable-source-maps scripts/run-compiled.mjs src/main.js [program arguments...]
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "./build.mjs";
import { buildState } from "./build-state.mjs";

const root = resolve(import.meta.dirname, "..");
const outDir = join(root, "dist");
const entry = process.argv[2];
if (!entry?.endsWith(".js")) {
  process.stderr.write(
    "usage: node --enable-source-maps scripts/run-compiled.mjs <entry under dist/, e.g. src/main.js> [arguments...]\n",
  );
  process.exit(2);
}
// The program parses process.argv.slice(2): it sees its own arguments, as when run directly.
process.argv.splice(2, 1);

const state = buildState(root, outDir);
if (state !== "fresh") {
  process.stderr.write(
    `compiling the program into dist/ (${state === "missing" ? "no build yet" : "the sources changed since the last build"})...\n`,
  );
  try {
    await build({ outDir });
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
await import(pathToFileURL(join(outDir, entry)).href);
