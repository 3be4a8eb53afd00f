// EXPLAIN (ANALYZE) of the exact statements the API sends for a page of messages: the page is read
// once through the API's own readMessagePage with a Prisma client that logs its SQL.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { z } from "zod";
import { PrismaClient } from "../../api/src/generated/prisma/client.js";
import { readMessagePage, type MessagePageQuery } from "../../api/src/sessions/message-pages.js";

export interface StatementPlan {
  sql: string;
  params: unknown[];
  plan: string[];
}

const QueryParams = z.array(z.unknown());

export async function explainMessagePage(databaseUrl: string, sessionId: string, query: MessagePageQuery): Promise<StatementPlan[]> {
  const statements = await captureStatements(databaseUrl, sessionId, query);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const plans: StatementPlan[] = [];
    for (const statement of statements) {
      const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params);
      plans.push({ ...statement, plan: rows.map((row) => row["QUERY PLAN"]) });
    }
    return plans;
  } finally {
    await client.end();
  }
}

async function captureStatements(databaseUrl: string, sessionId: string, query: MessagePageQuery): Promise<Omit<StatementPlan, "plan">[]> {
  const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 1 }), log: [{ emit: "event", level: "query" }] });
  const captured: Omit<StatementPlan, "plan">[] = [];
  db.$on("query", (event) => captured.push({ sql: event.query, params: QueryParams.parse(JSON.parse(event.params)) }));
  try {
    await readMessagePage(db, sessionId, query);
  } finally {
    await db.$disconnect();
  }
  return captured;
}

/** The SQL without Prisma's schema-qualified column list, for printing. */
export function shortSql(sql: string): string {
  return sql.replace(/^SELECT .*? FROM/, "SELECT … FROM").replaceAll('"public".', "");
}
