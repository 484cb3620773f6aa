// Mends a known defect of postgres.js 3.4.9 (porsager/postgres#1066, #1154, #1208; the guard of PR #1168 and #1176,
// not yet released): a write smaller than 1 KiB is sent from a setImmediate, which can run after the connection
// closed and nulled its socket, and then throws "Cannot read properties of null (reading 'write')" where nothing
// can catch it, ending the process (a real-services CI run lost the PostgreSQL outage test to it). Teardown also
// cleared that immediate without forgetting it, so a connection could never flush again. The guard drops the
// buffered bytes of a closed connection (its queries were already failed with CONNECTION_CLOSED), and teardown
// forgets the immediate. Run by `npm install` (postinstall) and by the Dockerfile and the production-install check,
// which install with --ignore-scripts. Idempotent; refuses a postgres.js whose text it does not recognise, so an
// upgrade is looked at (drop this script once a release carries the fix).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..");
const packageDir = join(root, "node_modules", "postgres");
const mendedVersion = "3.4.9";

const edits = [
  {
    from: "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)",
    to: "  function nextWrite(fn) {\n    if (!socket) return (chunk = nextWriteTimer = null, false) // patched: scripts/patch-postgres.mjs\n    const x = socket.write(chunk, fn)",
  },
  {
    from: "    clearImmediate(nextWriteTimer)\n    if (socket) {",
    to: "    clearImmediate(nextWriteTimer)\n    nextWriteTimer = null // patched: scripts/patch-postgres.mjs\n    if (socket) {",
  },
  {
    from: "    incomings = null\n    clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)",
    to: "    incomings = null\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null // patched: scripts/patch-postgres.mjs\n    socket.removeListener('data', data)",
  },
];

if (!existsSync(packageDir)) process.exit(0); // not installed (yet): nothing to mend
const version = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version;
if (version !== mendedVersion) {
  console.error(
    `patch-postgres: postgres ${version} installed, the mend is for ${mendedVersion}: check whether it still needs one`,
  );
  process.exit(1);
}
for (const flavour of ["src", "cjs/src", "cf/src"]) {
  const file = join(packageDir, flavour, "connection.js");
  if (!existsSync(file)) continue;
  let text = readFileSync(file, "utf8");
  if (text.includes("patched: scripts/patch-postgres.mjs")) continue;
  for (const { from, to } of edits) {
    if (text.split(from).length !== 2) {
      console.error(
        `patch-postgres: ${file} does not hold the expected text once: ${JSON.stringify(from.slice(0, 60))}`,
      );
      process.exit(1);
    }
    text = text.replace(from, to);
  }
  writeFileSync(file, text);
}
