// scripts/patch-postgres.mjs, the postinstall mend of postgres.js 3.4.9's write after close (porsager/postgres#1208)
// and of a closed connection's query kept as its current one (#1223): the installed driver carries it in each module
// flavour; on a copy of the unmended text the script applies its five edits once, a second run changes nothing, a
// driver mended by the script's first version (three edits) gets the two added since, and another version or
// unknown text is refused (exit 1). What the second mend changes is tested in test/storage/postgres.test.ts.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as assert from "uvu/assert";
import { suite } from "../support/suite.js";

const Patch = suite("scripts/patch-postgres");
const root = fileURLToPath(new URL("../../", import.meta.url));
const marker = "patched: scripts/patch-postgres.mjs";

const run = (dir: string) =>
  new Promise<number>((resolve) =>
    execFile(process.execPath, [join(root, "scripts/patch-postgres.mjs"), dir], (error) =>
      resolve(error ? Number(error.code ?? 1) : 0),
    ),
  );

/** A project holding postgres.js's package.json (at `version`) and its connection.js without the mend. */
function unmendedProject(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), "patch-postgres-"));
  const packageDir = join(dir, "node_modules", "postgres");
  mkdirSync(join(packageDir, "src"), { recursive: true });
  writeFileSync(join(packageDir, "package.json"), JSON.stringify({ name: "postgres", version }));
  const mended = readFileSync(join(root, "node_modules/postgres/src/connection.js"), "utf8");
  const unmended = mended
    .split("\n")
    .filter((line) => !line.includes(marker) || line.includes("const x"))
    .join("\n");
  writeFileSync(join(packageDir, "src", "connection.js"), unmended);
  return dir;
}

Patch("the installed postgres.js is mended in each flavour it ships", () => {
  for (const flavour of ["src", "cjs/src"]) {
    const text = readFileSync(join(root, "node_modules/postgres", flavour, "connection.js"), "utf8");
    assert.is(text.split(marker).length - 1, 5, flavour);
    assert.match(text, "if (!socket) return (chunk = nextWriteTimer = null, false)");
    assert.match(text, "initial && (query = errorResponse = null)");
  }
});

Patch("on the unmended text: five edits, once; a second run changes nothing; another version is refused", async () => {
  const dir = unmendedProject("3.4.9");
  try {
    const file = join(dir, "node_modules/postgres/src/connection.js");
    assert.is(readFileSync(file, "utf8").includes(marker), false);
    assert.is(await run(dir), 0);
    const once = readFileSync(file, "utf8");
    assert.is(once.split(marker).length - 1, 5);
    assert.is(await run(dir), 0);
    assert.is(readFileSync(file, "utf8"), once);
    // As the script's first version left it: the write guard's three edits, not the query's two.
    writeFileSync(
      file,
      once
        .split("\n")
        .filter((line) => !(line.includes(marker) && line.includes("errorResponse = null")))
        .join("\n"),
    );
    assert.is(readFileSync(file, "utf8").split(marker).length - 1, 3);
    assert.is(await run(dir), 0);
    assert.is(readFileSync(file, "utf8"), once);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const newer = unmendedProject("3.4.10");
  try {
    assert.is(await run(newer), 1);
  } finally {
    rmSync(newer, { recursive: true, force: true });
  }
  const changed = unmendedProject("3.4.9");
  try {
    const file = join(changed, "node_modules/postgres/src/connection.js");
    writeFileSync(file, readFileSync(file, "utf8").replace("function nextWrite(fn) {", "function nextWrite(fn, x) {"));
    assert.is(await run(changed), 1);
  } finally {
    rmSync(changed, { recursive: true, force: true });
  }
});

Patch.run();
