/**
 * HTTP status of a failed Kubernetes call: the generated client throws ApiException with `code`,
 * the watch reports `statusCode`.
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code === "number") return code;
  if (typeof statusCode === "number") return statusCode;
  return undefined;
}

export const isNotFound = (error: unknown): boolean => httpStatusOf(error) === 404;
export const isConflict = (error: unknown): boolean => httpStatusOf(error) === 409;
export const isGone = (error: unknown): boolean => httpStatusOf(error) === 410;

/** Runs a delete; a 404 means it is already gone, which is what was wanted. */
export async function deleteIgnoringNotFound(remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Runs a read; a 404 becomes null. */
export async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
