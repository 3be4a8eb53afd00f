import { Redactor, secretPlaceholder, type ExtraSecret } from "../secrets/redactor.js";

/**
 * Every value the logs must never show: the session token, model API keys and every task's
 * secrets. Values are remembered after their task ends, since pages and later lines may still
 * hold them.
 */
export class LogSecrets {
  private readonly known = new Map<string, string>();
  private redactor: Redactor;

  constructor(token: string) {
    this.known.set(token, "[agent-token]");
    this.redactor = this.build();
  }

  addTask(sensitiveData: Readonly<Record<string, string>> | null, modelApiKey: string | null): void {
    for (const [key, value] of Object.entries(sensitiveData ?? {})) this.known.set(value, secretPlaceholder(key));
    if (modelApiKey) this.known.set(modelApiKey, "[model-api-key]");
    this.redactor = this.build();
  }

  current(): Redactor {
    return this.redactor;
  }

  private build(): Redactor {
    const extras: ExtraSecret[] = [...this.known].map(([value, replacement]) => ({ value, replacement }));
    return new Redactor(null, extras);
  }
}
