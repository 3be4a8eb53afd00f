# syntax=docker/dockerfile:1
# The agent image: one browser session per pod, created by the operator.
# Build context: the repository root (scripts/build-images.sh).
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
COPY agent-pod/ agent-pod/
RUN npx tsc -b protocol agent-pod

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY agent-pod/package.json agent-pod/
COPY operator/package.json operator/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace agent-pod

FROM ${NODE_IMAGE} AS runtime
# Debian's Chromium (playwright-core drives it; no browser download), fonts for Latin, CJK and
# emoji pages, and tini to reap Chromium's orphaned child processes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium fonts-liberation fonts-noto-color-emoji fonts-noto-cjk tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && fc-cache -f
# The operator runs the pod as 10001:10001 (AGENT_RUN_AS_USER/GROUP, set by the chart) with a
# read-only root filesystem and emptyDirs at /tmp, $HOME and /dev/shm.
RUN groupadd --gid 10001 agent \
 && useradd --uid 10001 --gid 10001 --home-dir /home/agent --create-home --shell /usr/sbin/nologin agent
ENV NODE_ENV=production \
    HOME=/home/agent \
    TMPDIR=/tmp \
    XDG_CONFIG_HOME=/home/agent/.config \
    XDG_CACHE_HOME=/home/agent/.cache \
    CHROMIUM_PATH=/usr/bin/chromium \
    DEVTOOLS_ADDRESS=0.0.0.0 \
    DEVTOOLS_PORT=9222
WORKDIR /app
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /src/package.json ./
COPY --from=build /src/protocol/package.json protocol/
COPY --from=build /src/protocol/dist protocol/dist
COPY --from=build /src/agent-pod/package.json agent-pod/
COPY --from=build /src/agent-pod/dist agent-pod/dist
USER 10001:10001
# Chromium DevTools, reached by the API for the live view.
EXPOSE 9222
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "agent-pod/dist/main.js"]
