# syntax=docker/dockerfile:1
# The API image. Build context: the repository root (scripts/build-images.sh).
# Pin the base by digest for reproducible builds:
#   --build-arg NODE_IMAGE=docker.io/library/node:20.20.2-bookworm-slim@sha256:<digest>
ARG NODE_IMAGE=docker.io/library/node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# Manifests first: the dependency layer is reused until a package.json or the lockfile changes.
COPY package.json package-lock.json tsconfig.json tsconfig.base.json prisma.config.ts ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY agent-pod/package.json agent-pod/
COPY operator/package.json operator/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY protocol/ protocol/
COPY prisma/ prisma/
COPY api/ api/
RUN npm run generate && npx tsc -b protocol api

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY agent-pod/package.json agent-pod/
COPY operator/package.json operator/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace api

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MIGRATIONS_DIR=/app/prisma/migrations
WORKDIR /app
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /src/package.json ./
COPY --from=build /src/protocol/package.json protocol/
COPY --from=build /src/protocol/dist protocol/dist
COPY --from=build /src/api/package.json api/
COPY --from=build /src/api/dist api/dist
COPY --from=build /src/prisma/migrations prisma/migrations
# Files stay root-owned and read-only to the service user; the chart mounts /tmp.
USER 10001:10001
EXPOSE 8080
# Also: node api/dist/cli/migrate.js (the chart's init container), node api/dist/cli/keys.js.
CMD ["node", "api/dist/main.js"]
