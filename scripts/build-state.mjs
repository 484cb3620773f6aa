// Whether the compiled build in an output folder is the build of the sources as they are now. The build writes a
// stamp (build-stamp.json) holding a digest of every input's path, size and modification time; `npm start` builds
// again when the stamp is missing or its digest differs (a file added, removed or changed, a branch checked out).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** The inputs of the build, relative to the project root: folders are walked, files taken as they are. */
export const buildInputs = ["src", "gen", "tsconfig.json", "tsconfig.build.json", "package.json", "scripts/build.mjs"];

/** Folders under the inputs that are not the program's: the partner client, a package built on its own (npm pack). */
export const notBuildInputs = ["src/client"];

export const stampFileName = "build-stamp.json";

/** Every input file under `root` as "path size mtimeMs", sorted; a missing input counts as absent. */
function listInputs(root, inputs) {
  const lines = [];
  const visit = (path) => {
    let info;
    try {
      info = statSync(path);
    } catch (error) {
      if (error.code === "ENOENT") return;
      throw error;
    }
    if (info.isDirectory()) {
      if (notBuildInputs.includes(relative(root, path).split(sep).join("/"))) return;
      for (const name of readdirSync(path)) visit(join(path, name));
      return;
    }
    lines.push(`${relative(root, path)} ${info.size} ${Math.trunc(info.mtimeMs)}`);
  };
  for (const input of inputs) visit(join(root, input));
  return lines.sort();
}

/** The digest of the inputs' listing: equal digests mean nothing was added, removed or touched. */
export function inputsDigest(root, inputs = buildInputs) {
  return createHash("sha256").update(listInputs(root, inputs).join("\n")).digest("hex");
}

/** "missing" (no stamp in outDir), "stale" (the inputs changed since) or "fresh". */
export function buildState(root, outDir, inputs = buildInputs) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(outDir, stampFileName), "utf8"));
  } catch (error) {
    if (error.code === "ENOENT" || error instanceof SyntaxError) return "missing";
    throw error;
  }
  return stamp.inputsDigest === inputsDigest(root, inputs) ? "fresh" : "stale";
}
