import type { FastifyInstance } from "fastify";

/**
 * decisions.md: POST bodies may arrive empty even with a JSON content type (stop, create). An
 * empty body is "no body"; anything else must be JSON.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
