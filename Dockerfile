# syntax=docker/dockerfile:1
# The partner API's image: every role (--role all|front|data) from one image, compiled JavaScript only.
# Stage 1 compiles (npm run build: tsc, source maps); stage 2 installs the runtime dependencies alone; the final
# stage holds those, package.json (the version) and dist/, runs as the unprivileged `node` user, and reports its
# health from /readyz (compose.yaml overrides the check for data roles, which have no HTTP front).
#   docker build -t partner-api .
#   docker run --rm -p 8080:8080 -p 8081:8081 -e DATABASE_URL=... -e REDIS_URL=... partner-api

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/ ./scripts/
COPY gen/ ./gen/
COPY src/ ./src/
RUN npm run build

FROM node:24-bookworm-slim AS runtime-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/patch-postgres.mjs ./scripts/
# --ignore-scripts skips our postinstall too: the postgres.js mend (scripts/patch-postgres.mjs) is run by name.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && node scripts/patch-postgres.mjs

FROM node:24-bookworm-slim
# Listeners on every interface of the container (the network decides who reaches them; never publish GRPC_PORT or
# REGION_GRPC_PORT, a data role's region hop).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    AUTH_PORT=8081 \
    GRPC_PORT=8090 \
    REGION_GRPC_PORT=8091 \
    DATA_DIR=/var/lib/partner-api
WORKDIR /app
RUN mkdir -p /var/lib/partner-api && chown node:node /var/lib/partner-api
COPY --from=runtime-dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
COPY deploy/healthcheck.mjs ./healthcheck.mjs
USER node
EXPOSE 8080 8081 8090 8091
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "healthcheck.mjs"]
# The preload sizes libuv's thread pool, where every RS256 signature runs (src/runtime/thread-pool.cjs).
CMD ["node", "--enable-source-maps", "--require", "./dist/src/runtime/thread-pool.cjs", "dist/src/main.js"]
