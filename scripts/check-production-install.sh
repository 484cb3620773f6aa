#!/usr/bin/env bash
# `npm run check:production-install`: what the container does, on this machine: a built tree (dist/) with only the
# runtime dependencies (`npm ci --omit=dev`, as the Dockerfile's runtime stage) starts on its embedded defaults and
# reports ready through deploy/healthcheck.mjs, then stops cleanly on SIGTERM. Catches a runtime import of a
# development dependency (tsx, pino-pretty, typescript, standardwebhooks: the client package and the tests verify with it)
# before an image does. Runs on the project's Node 24.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
node="$(command -v node)"
work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
pid=""

[ -f "$root/dist/src/main.js" ] || (cd "$root" && node scripts/build.mjs)
cp -r "$root/package.json" "$root/package-lock.json" "$root/.npmrc" "$root/dist" "$work/"
cp "$root/deploy/healthcheck.mjs" "$work/healthcheck.mjs"
cd "$work"
npm ci --omit=dev --no-audit --no-fund --ignore-scripts >/dev/null
# As the Dockerfile: --ignore-scripts skips the postinstall, so the postgres.js mend runs by name.
"$node" "$root/scripts/patch-postgres.mjs" "$work"
grep -q "patched: scripts/patch-postgres.mjs" node_modules/postgres/src/connection.js || { echo "postgres.js is not mended" >&2; exit 1; }
for dev in tsx pino-pretty typescript node standardwebhooks; do
  if [ -e "node_modules/$dev" ]; then echo "production install holds the development dependency $dev" >&2; exit 1; fi
done

# Four free loopback ports for the listeners, below the ephemeral range (scripts/free-port.mjs): CI runs this beside
# the test suite, whose outgoing connections take their source ports from that range.
read -r port auth console grpc < <("$node" --input-type=module -e '
const { freePort } = await import(process.argv[1]);
const ports = new Set();
while (ports.size < 4) ports.add(await freePort());
console.log([...ports].join(" "));' "$root/scripts/free-port.mjs")
export HOST=127.0.0.1 PORT=$port AUTH_PORT=$auth CONSOLE_PORT=$console GRPC_PORT=$grpc DATA_DIR="$work/data"
"$node" --enable-source-maps --require ./dist/src/runtime/thread-pool.cjs dist/src/main.js >"$work/service.log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  if "$node" healthcheck.mjs 2>/dev/null; then
    kill -TERM "$pid"
    if wait "$pid"; then echo "production install (npm ci --omit=dev, $(ls node_modules | wc -l) top-level packages) started, answered /readyz and stopped cleanly"; exit 0; fi
    echo "the service did not stop cleanly on SIGTERM:" >&2; tail -20 "$work/service.log" >&2; exit 1
  fi
  if ! kill -0 "$pid" 2>/dev/null; then echo "the service exited before it was ready:" >&2; tail -30 "$work/service.log" >&2; exit 1; fi
  sleep 1
done
echo "not ready within 120 s:" >&2; tail -30 "$work/service.log" >&2; exit 1
