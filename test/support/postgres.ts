// The one Postgres server a test run uses: TEST_DATABASE_URL when set, else a testcontainers
// container when a container runtime answers, else a temporary embedded Postgres.
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { startTemporaryPostgres } from "../../scripts/temporary-postgres.js";

export interface TestPostgresServer {
  kind: "external" | "container" | "embedded";
  /** Connection that may create and drop databases. */
  adminConnectionString: string;
  stop(): Promise<void>;
}

const POSTGRES_IMAGE = "postgres:18-alpine";
const CONTAINER_PASSWORD = "test";

export async function startTestPostgresServer(env: NodeJS.ProcessEnv = process.env): Promise<TestPostgresServer> {
  const external = env["TEST_DATABASE_URL"];
  if (external) return { kind: "external", adminConnectionString: external, stop: async () => {} };
  if (mayHaveContainerRuntime(env)) {
    const container = await startPostgresContainer();
    if (container) return container;
  }
  const embedded = await startTemporaryPostgres(pino({ level: "warn" }));
  return { kind: "embedded", adminConnectionString: embedded.adminConnectionString, stop: embedded.stop };
}

/** Asking testcontainers costs seconds and log noise when nothing is there; look for a socket first. */
function mayHaveContainerRuntime(env: NodeJS.ProcessEnv): boolean {
  if (env["DOCKER_HOST"]) return true;
  const home = os.homedir();
  const runtimeDir = env["XDG_RUNTIME_DIR"];
  const sockets = [
    "/var/run/docker.sock",
    "/run/podman/podman.sock",
    path.join(home, ".docker/run/docker.sock"),
    path.join(home, ".docker/desktop/docker.sock"),
    path.join(home, ".colima/default/docker.sock"),
    path.join(home, ".rd/docker.sock"),
    ...(runtimeDir ? [path.join(runtimeDir, "docker.sock"), path.join(runtimeDir, "podman/podman.sock")] : []),
  ];
  return sockets.some((socket) => existsSync(socket));
}

async function startPostgresContainer(): Promise<TestPostgresServer | undefined> {
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import("testcontainers");
  try {
    await getContainerRuntimeClient();
  } catch {
    return undefined;
  }
  const container = await new GenericContainer(POSTGRES_IMAGE)
    .withEnvironment({ POSTGRES_PASSWORD: CONTAINER_PASSWORD })
    .withExposedPorts(5432)
    // The image's entrypoint starts the server twice: once to initialise, then for real.
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const host = container.getHost();
  const port = container.getMappedPort(5432);
  return {
    kind: "container",
    adminConnectionString: `postgres://postgres:${CONTAINER_PASSWORD}@${host}:${port}/postgres`,
    stop: async () => {
      await container.stop();
    },
  };
}
