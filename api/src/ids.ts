import { v7 as uuidv7 } from "uuid";

/** Server-made ids are UUIDv7: lower-case, hyphenated, and sorting in creation order. */
export function newId(): string {
  return uuidv7();
}
