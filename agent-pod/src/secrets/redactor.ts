/** How the model sees a secret: it never sees the value, only this placeholder. */
export function secretPlaceholder(key: string): string {
  return `<secret>${key}</secret>`;
}

const PLACEHOLDER_PATTERN = /<secret>([^<]*)<\/secret>/g;

/** A value to hide that is not a task secret (the session token, the model's API key). */
export interface ExtraSecret {
  value: string;
  replacement: string;
}

export class UnknownSecretError extends Error {
  override readonly name = "UnknownSecretError";
}

/**
 * Replaces secret values with placeholders in every string that leaves the agent, and puts the
 * values back only where the browser needs them (inside a `type` action).
 */
export class Redactor {
  private readonly valuesByKey: ReadonlyMap<string, string>;
  private readonly plain: Matcher | null;
  private readonly jsonEscaped: Matcher | null;

  constructor(sensitiveData: Readonly<Record<string, string>> | null, extra: readonly ExtraSecret[] = []) {
    const entries = Object.entries(sensitiveData ?? {});
    this.valuesByKey = new Map(entries);
    const secrets = [...entries.map(([key, value]) => ({ value, replacement: secretPlaceholder(key) })), ...extra];
    this.plain = buildMatcher(secrets);
    this.jsonEscaped = buildMatcher([
      ...secrets,
      ...secrets.map(({ value, replacement }) => ({ value: jsonEscape(value), replacement: jsonEscape(replacement) })),
    ]);
  }

  get secretKeys(): string[] {
    return [...this.valuesByKey.keys()];
  }

  redact(text: string): string {
    return this.plain ? this.plain.apply(text) : text;
  }

  /** Redacts a line of JSON, where a value may also appear JSON-escaped. */
  redactJsonText(text: string): string {
    return this.jsonEscaped ? this.jsonEscaped.apply(text) : text;
  }

  /** Redacts every string (keys included) inside a JSON value. */
  redactValue(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [this.redact(key), this.redactValue(item)]),
      );
    }
    return value;
  }

  /** Puts secret values in place of their placeholders; an unknown key is an error the model can fix. */
  substitute(text: string): string {
    return text.replace(PLACEHOLDER_PATTERN, (_match, key: string) => {
      const value = this.valuesByKey.get(key);
      if (value === undefined) {
        const known = this.secretKeys.map(secretPlaceholder).join(", ") || "none";
        throw new UnknownSecretError(`Unknown secret ${secretPlaceholder(key)}; available: ${known}`);
      }
      return value;
    });
  }
}

interface Matcher {
  apply(text: string): string;
}

/**
 * One regular expression for all values, longest first, so the text is scanned once: a secret
 * that contains another is replaced whole, and a placeholder already written is never re-matched.
 */
function buildMatcher(secrets: readonly ExtraSecret[]): Matcher | null {
  const byValue = new Map<string, string>();
  for (const { value, replacement } of secrets) {
    if (value.length > 0 && !byValue.has(value)) byValue.set(value, replacement);
  }
  if (byValue.size === 0) return null;
  const alternatives = [...byValue.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(alternatives.join("|"), "g");
  return { apply: (text) => text.replace(pattern, (match) => byValue.get(match) ?? match) };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
