import { createHash, createHmac } from "node:crypto";

/**
 * A session's agent credential is derived from the session id with a signing key that only the
 * API and the operator hold. The operator can then put it in the pod's Secret without the token
 * ever appearing in the AgentSession resource, and the API stores only its hash.
 */
export function deriveAgentToken(signingKey: string, sessionId: string): string {
  return "agt_" + createHmac("sha256", signingKey).update(`agent-session:${sessionId}`).digest("base64url");
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
