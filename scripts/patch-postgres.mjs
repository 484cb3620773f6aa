// Mends a known defect of postgres.js 3.4.9 (porsager/postgres#1066, #1154, #1208; the guard of PR #1168 and #1176,
// not yet released): a write smaller than 1 KiB is sent from a setImmediate, which can run after the connection
// closed and nulled its socket, and then throws "Cannot read properties of null (reading 'write')" where nothing
// can catch it, ending the process (a real-services CI run lost the PostgreSQL outage test to it). Teardown also
// cleared that immediate without forgetting it, so a connection could never flush again. The guard drops the
// buffered bytes of a closed connection (its queries were already failed with CONNECTION_CLOSED), and teardown
// forgets the immediate. Second, a closed connection kept the query it was running as its current one, so the next
// startup's refusal was taken for that query's error and the query waiting for the connection hung until the server
// took connections again (see the last edit, and #1223 for another face of it). Run by `npm install` (postinstall)
// and by the Dockerfile and the production-install check, which install with --ignore-scripts. Idempotent, edit by
// edit; refuses a postgres.js whose text it does not recognise, so an upgrade is looked at (drop this script once a
// release carries the fixes).
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
  // A closed connection forgets the query it was running (porsager/postgres#1223 is one face of it). Left set, the
  // connection's next startup took a refusal (57P03 starting up, 53300 too many clients, a database not accepting
  // connections) for that old query's error: the query waiting for the connection was never failed, and it
  // reconnected until the server took connections again (a partner call hung to its 15 s deadline in CI).
  {
    from: "    socket = null\n\n    if (initial)\n      return reconnect()\n\n    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
    to: "    socket = null\n\n    initial && (query = errorResponse = null) // patched: scripts/patch-postgres.mjs\n    if (initial)\n      return reconnect()\n\n    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n    query = errorResponse = null // patched: scripts/patch-postgres.mjs\n",
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
  const original = readFileSync(file, "utf8");
  let text = original;
  // Edit by edit, so a driver mended by an earlier version of this script gets the edits added since.
  for (const { from, to } of edits) {
    if (text.includes(to)) continue;
    if (text.split(from).length !== 2) {
      console.error(
        `patch-postgres: ${file} does not hold the expected text once: ${JSON.stringify(from.slice(0, 60))}`,
      );
      process.exit(1);
    }
    text = text.replace(from, to);
  }
  if (text !== original) writeFileSync(file, text);
}
