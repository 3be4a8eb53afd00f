// Fills sessions with messages straight in SQL: a million rows through the API would take hours.
import type pg from "pg";

/** Rows per INSERT: bounds each statement and shows progress. */
const BATCH = 250_000;

/**
 * Message ids of a seeding: UUIDs (version 7 layout) whose order is the seq order,
 * `<seeding number>-0000-7000-8000-<position>`, position 1 being the oldest message.
 */
export function seededMessageId(seedingNumber: number, position: number): string {
  return `${seedingNumber.toString(16).padStart(8, "0")}-0000-7000-8000-${position.toString(16).padStart(12, "0")}`;
}

export interface SeedPlan {
  /** Message `position` goes to sessionIds[(position - 1) % length]: interleaved, as concurrent sessions write. */
  sessionIds: string[];
  /** Distinguishes this seeding's message ids from other seedings'. */
  seedingNumber: number;
  count: number;
}

/** Inserts the messages after every existing one (newer seq and ids), then moves the seq sequence past them. */
export async function seedMessages(client: pg.Client, plan: SeedPlan, onProgress: (inserted: number) => void = () => {}): Promise<void> {
  const { rows } = await client.query<{ base: string }>(`SELECT COALESCE(MAX(seq), 0)::text AS base FROM "Message"`);
  const base = rows[0]?.base ?? "0";
  for (let first = 1; first <= plan.count; first += BATCH) {
    const last = Math.min(plan.count, first + BATCH - 1);
    await client.query(
      `INSERT INTO "Message" (seq, id, "sessionId", role, type, data, summary, hidden, "createdAt")
       SELECT $1::bigint + g,
              (lpad(to_hex($2::int), 8, '0') || '-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid,
              ($3::uuid[])[1 + (g - 1) % cardinality($3::uuid[])],
              CASE WHEN g % 3 = 0 THEN 'human' ELSE 'ai' END,
              'planning',
              'Step ' || g || ': looked at the result list, the cheapest fare so far is EUR ' || (50 + g % 400) ||
                '; next I will open the airline''s page and check the luggage rules before answering the user.',
              'Step ' || g || ': compared fares',
              false,
              now() - make_interval(secs => ($6::int - g) / 1000.0)
       FROM generate_series($4::int, $5::int) AS g
       ORDER BY g`,
      [base, plan.seedingNumber, plan.sessionIds, first, last, plan.count],
    );
    onProgress(last);
  }
  await client.query(`SELECT setval(pg_get_serial_sequence('"Message"', 'seq'), (SELECT MAX(seq) FROM "Message"))`);
}
