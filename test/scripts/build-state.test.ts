// When `npm start` compiles again: no stamp is "missing"; any input added, removed or modified after the build is
// "stale"; untouched inputs are "fresh". On a folder of its own, so the project's dist/ is never touched.
import { mkdir, mkdtemp, rm, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { buildInputs, buildState, inputsDigest, stampFileName } from "../../scripts/build-state.mjs";

const BuildState = suite("scripts/build-state");

/** A project root with a few inputs and an output folder stamped with their digest as they are now. */
async function builtProject() {
  const root = await mkdtemp(join(tmpdir(), "partner-api-build-state-"));
  await mkdir(join(root, "src", "storage"), { recursive: true });
  await mkdir(join(root, "gen"), { recursive: true });
  await writeFile(join(root, "src", "main.ts"), "export {};\n");
  await writeFile(join(root, "src", "storage", "migrate.ts"), "export {};\n");
  await writeFile(join(root, "gen", "a_pb.ts"), "export {};\n");
  await writeFile(join(root, "tsconfig.json"), "{}\n");
  const outDir = join(root, "dist");
  await mkdir(outDir);
  const stamp = async () =>
    writeFile(join(outDir, stampFileName), JSON.stringify({ inputsDigest: inputsDigest(root) }));
  return { root, outDir, stamp };
}

BuildState("the inputs are the sources, the generated code and what configures the build", () => {
  assert.equal(buildInputs, [
    "src",
    "gen",
    "tsconfig.json",
    "tsconfig.build.json",
    "package.json",
    "scripts/build.mjs",
  ]);
});

BuildState(
  "the partner client's package (src/client: its sources, manifest and build) is not an input of the program",
  async () => {
    const project = await builtProject();
    try {
      await project.stamp();
      await mkdir(join(project.root, "src", "client", "dist"), { recursive: true });
      await writeFile(join(project.root, "src", "client", "index.ts"), "export {};\n");
      await writeFile(join(project.root, "src", "client", "dist", "index.js"), "export {};\n");
      assert.is(buildState(project.root, project.outDir), "fresh");
      await writeFile(join(project.root, "src", "clientele.ts"), "export {};\n");
      assert.is(buildState(project.root, project.outDir), "stale");
    } finally {
      await rm(project.root, { recursive: true, force: true });
    }
  },
);

BuildState("no stamp is missing; a stamp of the inputs as they are is fresh", async () => {
  const project = await builtProject();
  try {
    assert.is(buildState(project.root, project.outDir), "missing");
    await writeFile(join(project.outDir, stampFileName), "{ half a file");
    assert.is(buildState(project.root, project.outDir), "missing");
    await project.stamp();
    assert.is(buildState(project.root, project.outDir), "fresh");
  } finally {
    await rm(project.root, { recursive: true, force: true });
  }
});

BuildState("a modified, added or removed input makes the build stale", async () => {
  const project = await builtProject();
  try {
    await project.stamp();
    const later = new Date(Date.now() + 60_000);
    await utimes(join(project.root, "src", "storage", "migrate.ts"), later, later);
    assert.is(buildState(project.root, project.outDir), "stale", "modified");

    await project.stamp();
    await writeFile(join(project.root, "gen", "b_pb.ts"), "export {};\n");
    assert.is(buildState(project.root, project.outDir), "stale", "added");

    await project.stamp();
    await unlink(join(project.root, "src", "main.ts"));
    assert.is(buildState(project.root, project.outDir), "stale", "removed");

    await project.stamp();
    await writeFile(join(project.root, "tsconfig.json"), '{ "compilerOptions": {} }\n');
    assert.is(buildState(project.root, project.outDir), "stale", "the build's configuration changed");

    await project.stamp();
    // Output files are not inputs: writing under dist/ keeps the build fresh.
    await writeFile(join(project.outDir, "main.js"), "export {};\n");
    assert.is(buildState(project.root, project.outDir), "fresh");
  } finally {
    await rm(project.root, { recursive: true, force: true });
  }
});

BuildState.run();
