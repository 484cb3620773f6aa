// The codemod that moves test files onto test/support/suite.ts (uvu's suite with a timeout per test): rewrites
// `import { suite } from "uvu";` (or `{ test }`, or both) into the same import from the wrapper, by a relative path.
//
//   node scripts/use-test-suite.mjs [FILE|DIR ...]     (default: test)
//
// By hand it is the one-line change  import { suite } from "uvu";  →  import { suite } from "../support/suite.js";
// (as many ../ as the file is deep under test/). scripts/run-tests.mjs refuses a test file still importing "uvu".
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const wrapper = join(root, "test", "support", "suite.ts");
const uvuImport = /^import\s*\{([^}]*)\}\s*from\s*["']uvu["'];?[ \t]*$/m;

function walk(path, out) {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path))
      if (entry !== "node_modules" && !entry.startsWith(".")) walk(join(path, entry), out);
  } else if (/\.(test|topology)\.[mc]?[jt]sx?$/.test(path)) {
    out.push(resolve(path));
  }
  return out;
}

// In directories the test files (*.test.ts, *.topology.ts); a file named outright is rewritten whatever its name.
const targets = (process.argv.length > 2 ? process.argv.slice(2) : [join(root, "test")]).flatMap((path) =>
  statSync(path).isFile() ? [resolve(path)] : walk(path, []),
);
let changed = 0;
for (const file of targets) {
  const source = readFileSync(file, "utf8");
  const match = uvuImport.exec(source);
  if (!match) continue;
  const names = match[1]
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !/^(suite|test)$/.test(name.replace(/^type\s+/, "").split(/\s+as\s+/)[0]));
  if (unknown.length > 0) {
    console.error(`${relative(root, file)}: imports ${unknown.join(", ")} from "uvu"; change it by hand`);
    process.exitCode = 1;
    continue;
  }
  let path = relative(dirname(file), wrapper).replace(/\.ts$/, ".js");
  if (!path.startsWith(".")) path = `./${path}`;
  writeFileSync(file, source.replace(uvuImport, `import { ${names.join(", ")} } from "${path}";`));
  changed++;
  console.log(`${relative(root, file)}: now imports from ${path}`);
}
console.log(`${changed} file${changed === 1 ? "" : "s"} changed`);
