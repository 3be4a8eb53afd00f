const unreachableCodes = new Set([
  "ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH",
  // Prisma: cannot reach / timed out / closed the connection / pool timeout.
  "P1001", "P1002", "P1008", "P1017", "P2024",
  // Postgres: shutting down, cannot connect now, connection failures.
  "57P01", "57P02", "57P03", "08000", "08001", "08003", "08006",
]);

const unreachableMessages = /ECONNREFUSED|Can't reach database|Connection terminated|connection timeout|terminating connection|the database system is (starting up|shutting down)|Server has closed the connection|DatabaseNotReachable|ConnectionClosed/i;

/** True when an error means "the database cannot be reached right now" rather than a bug. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 6) return false;
  const candidate = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; kind?: unknown; errors?: unknown };
  if (typeof candidate.code === "string" && unreachableCodes.has(candidate.code)) return true;
  if (candidate.name === "PrismaClientInitializationError") return true;
  if (typeof candidate.kind === "string" && /DatabaseNotReachable|ConnectionClosed|SocketTimeout|TooManyConnections/.test(candidate.kind)) return true;
  if (typeof candidate.message === "string" && unreachableMessages.test(candidate.message)) return true;
  if (Array.isArray(candidate.errors) && candidate.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(candidate.cause, depth + 1);
}
