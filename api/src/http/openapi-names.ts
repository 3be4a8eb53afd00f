/**
 * The zod type provider names every request schema `<id>Input` (and also emits an unused output
 * form under the plain name). Where nothing refers to the plain name, the request schema takes
 * it, so generated clients see the names api-v3.md uses (RunTaskRequest, StopSessionRequest...).
 */
export function useContractSchemaNames<T extends object>(document: T): T {
  const schemas = (document as { components?: { schemas?: Record<string, unknown> } }).components?.schemas;
  if (!schemas) return document;
  let text = JSON.stringify(document);
  const refTo = (name: string) => `"#/components/schemas/${name}"`;
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith("Input")) continue;
    const plain = name.slice(0, -"Input".length);
    if (text.includes(refTo(plain))) continue;
    schemas[plain] = schemas[name];
    delete schemas[name];
    text = JSON.stringify(document).split(refTo(name)).join(refTo(plain));
    Object.assign(document, JSON.parse(text));
  }
  return document;
}
