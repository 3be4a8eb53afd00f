import pino, { type Logger } from "pino";

/** Credentials, cookies and sensitive data never reach the logs. */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  'req.headers["x-browser-use-api-key"]',
  'req.headers["x-service-api-key"]',
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  "sensitiveData",
  "*.sensitiveData",
  "storageState",
  "*.storageState",
  "apiKey",
  "*.apiKey",
  "token",
  "*.token",
  "key",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, destination);
}
