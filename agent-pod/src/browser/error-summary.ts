/**
 * A one-line reason for the model from a Playwright error. Playwright messages carry a call log
 * over several lines; the first line says what failed and a few log lines say why (an overlay
 * intercepting the click, an element that stays invisible), so those are kept.
 */
export function describeError(error: unknown): string {
  // Playwright colours its call log with ANSI escapes, which mean nothing to a model.
  const message = (error instanceof Error ? error.message : String(error)).replace(/\u001b\[[0-9;]*m/g, "");
  const lines = message.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  const headline = (lines[0] ?? "Unknown error").replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, "");
  const telling = lines.find((line) =>
    /intercepts pointer events|not visible|not enabled|not stable|detached|outside of the viewport/.test(line),
  );
  const reason =
    telling !== undefined && telling !== lines[0] ? `${headline} (${telling.replace(/^- /, "")})` : headline;
  return reason.length > 300 ? `${reason.slice(0, 299)}…` : reason;
}
