// `npm run check:engines`: every installed package's `engines.node` against the Node that runs the project (the `node`
// devDependency that `npm run` puts first on PATH), and the same Node against the root's own `engines`. npm checks
// engines only against the Node that runs npm itself, which may be the machine's older one (.npmrc says why).
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";

const root = new URL("..", import.meta.url).pathname;
const running = process.versions.node;
const problems = [];

function check(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const wanted = manifest.engines?.node;
  if (typeof wanted === "string" && !semver.satisfies(running, wanted, { includePrerelease: true }))
    problems.push(`${manifest.name}@${manifest.version} wants node ${wanted}`);
}

function walk(modules) {
  if (!existsSync(modules)) return;
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dir = join(modules, entry.name);
    if (entry.name.startsWith("@")) {
      walk(dir);
      continue;
    }
    if (existsSync(join(dir, "package.json"))) check(dir);
    walk(join(dir, "node_modules"));
  }
}

check(root);
walk(join(root, "node_modules"));
if (problems.length > 0) {
  process.stderr.write(`node ${running} does not satisfy:\n  ${problems.join("\n  ")}\n`);
  process.exit(1);
}
process.stdout.write(`node ${running} satisfies the engines of every installed package\n`);
