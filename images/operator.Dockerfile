# syntax=docker/dockerfile:1
# The operator image. Build context: the repository root (scripts/build-images.sh).
# Pin the base by digest for reproducible builds:
#   --build-arg NODE_IMAGE=docker.io/library/node:20.20.2-bookworm-slim@sha256:<digest>
ARG NODE_IMAGE=docker.io/library/node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY agent-pod/package.json agent-pod/
COPY operator/package.json operator/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY protocol/ protocol/
COPY operator/ operator/
RUN npx tsc -b protocol operator

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY agent-pod/package.json agent-pod/
COPY operator/package.json operator/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace operator

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /src/package.json ./
COPY --from=build /src/protocol/package.json protocol/
COPY --from=build /src/protocol/dist protocol/dist
COPY --from=build /src/operator/package.json operator/
COPY --from=build /src/operator/dist operator/dist
USER 10001:10001
# Metrics and health: /metrics, /healthz, /readyz.
EXPOSE 8081
CMD ["node", "operator/dist/main.js"]
