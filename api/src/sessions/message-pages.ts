import type { Message, PrismaClient } from "../db/client-types.js";
import { errors } from "../errors.js";
import { UUID_PATTERN } from "../http/common-schemas.js";
import { isoTime } from "../http/format.js";
import type { MessageResponse } from "./session-schemas.js";

export interface MessagePageQuery {
  after?: string | null;
  before?: string | null;
  limit: number;
}

/**
 * decisions.md cursors: oldest first in every response; `after`/`before` are exclusive message ids;
 * no cursor = the newest `limit`; hasMore says whether more lie beyond the page in the direction read.
 * Every query reads a range of the (sessionId, seq) primary key.
 */
export async function readMessagePage(db: PrismaClient, sessionId: string, query: MessagePageQuery) {
  const afterSeq = query.after ? await cursorSeq(db, sessionId, query.after) : null;
  const beforeSeq = query.before ? await cursorSeq(db, sessionId, query.before) : null;
  const seq = { ...(afterSeq !== null ? { gt: afterSeq } : {}), ...(beforeSeq !== null ? { lt: beforeSeq } : {}) };
  const where = { sessionId, ...(afterSeq !== null || beforeSeq !== null ? { seq } : {}) };
  const readNewestFirst = afterSeq === null;
  const rows = await db.message.findMany({ where, orderBy: { seq: readNewestFirst ? "desc" : "asc" }, take: query.limit + 1 });
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  if (readNewestFirst) page.reverse();
  return { messages: page.map(messageView), hasMore };
}

async function cursorSeq(db: PrismaClient, sessionId: string, id: string): Promise<bigint> {
  const cursor = UUID_PATTERN.test(id) ? await db.message.findUnique({ where: { id: id.toLowerCase() }, select: { seq: true, sessionId: true } }) : null;
  if (!cursor || cursor.sessionId !== sessionId) throw errors.invalidCursor(id);
  return cursor.seq;
}

export function messageView(message: Message): MessageResponse {
  return {
    id: message.id,
    sessionId: message.sessionId,
    role: message.role,
    data: message.data,
    type: message.type,
    summary: message.summary,
    screenshotUrl: null,
    hidden: message.hidden,
    createdAt: isoTime(message.createdAt),
  };
}
