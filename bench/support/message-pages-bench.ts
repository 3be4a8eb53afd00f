// Part 2: reading one page of 100 messages in a session of a million, with and without cursors,
// against the same reads in a session of 100 messages; then again once other sessions have
// written newer messages.
import pg from "pg";
import { z } from "zod";
import type { ApiUnderTest } from "./api-under-test.js";
import { generateLoad } from "./load-generator.js";
import type { LoadResult } from "./load-protocol.js";
import { explainMessagePage, shortSql } from "./message-page-plans.js";
import type { MessagePageQuery } from "../../api/src/sessions/message-pages.js";
import { seededMessageId, seedMessages, type SeedPlan } from "./message-seed.js";
import { statementsSent } from "./query-counter.js";
import { ms, ratio } from "./latency-stats.js";

export interface MessagePagesBenchOptions {
  messages: number;
  baselineMessages: number;
  /** Requests per kind and region. */
  requestsPerGroup: number;
  /** Newer messages of other sessions, added for the second measurement. */
  otherMessages: number;
  otherSessions: number;
}

const PAGE = 100;
/** Seeding numbers: the first group of each message id. */
const LARGE = 1;
const BASELINE = 2;
const OTHERS = 3;

type Kind = "latest" | "after" | "before";

interface Seeded {
  sessionId: string;
  seedingNumber: number;
  size: number;
}

interface Group {
  label: string;
  kind: Kind;
  session: Seeded;
  /** Cursor positions (1 = the session's oldest message); empty for "latest". */
  positions: number[];
}

interface GroupResult {
  group: Group;
  result: LoadResult;
  statementsPerRequest: number;
}

export async function benchMessagePages(api: ApiUnderTest, databaseUrl: string, options: MessagePagesBenchOptions): Promise<void> {
  const large: Seeded = { sessionId: await api.createSession(`${options.messages} messages`), seedingNumber: LARGE, size: options.messages };
  const baseline: Seeded = { sessionId: await api.createSession(`${options.baselineMessages} messages`), seedingNumber: BASELINE, size: options.baselineMessages };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    process.stdout.write(`\ninserting ${options.messages.toLocaleString("en")} messages of one session:`);
    await timedSeed(client, [planOf(large), planOf(baseline)]);
    const { baselineGroups, largeGroups } = pageReads(large, baseline, options.requestsPerGroup);

    for (const group of [...baselineGroups, ...largeGroups]) await checkPage(api, group);
    console.log(`\nwarm-up: ${options.requestsPerGroup} page reads of each kind`);
    await readAll(api, baselineGroups, options.requestsPerGroup);
    const baselineResults = await readAll(api, baselineGroups, options.requestsPerGroup);
    printResults(options.requestsPerGroup, baselineResults, await readAll(api, largeGroups, options.requestsPerGroup));

    const middle = Math.floor(large.size / 2);
    console.log(
      `\nEXPLAIN (ANALYZE, BUFFERS) of the statements readMessagePage sends (cursor at position ${middle.toLocaleString("en")} of ${large.size.toLocaleString("en")}):`,
    );
    await printPlans(databaseUrl, large.sessionId, "no cursor", { limit: PAGE });
    await printPlans(databaseUrl, large.sessionId, "after", { after: seededMessageId(LARGE, middle), limit: PAGE });
    await printPlans(databaseUrl, large.sessionId, "before", { before: seededMessageId(LARGE, middle), limit: PAGE });
    await printPlans(databaseUrl, baseline.sessionId, `no cursor, session of ${baseline.size}`, { limit: PAGE });

    console.log(
      `\n## 2b. The same reads after ${options.otherSessions} other sessions wrote ${options.otherMessages.toLocaleString("en")} newer messages (interleaved)`,
    );
    const others: string[] = [];
    for (let index = 0; index < options.otherSessions; index += 1) others.push(await api.createSession(`other ${index + 1}`));
    process.stdout.write("inserting:");
    await timedSeed(client, [{ sessionIds: others, seedingNumber: OTHERS, count: options.otherMessages }]);
    const again = largeGroups.filter((group) => group.kind === "latest" || group.label.endsWith("near the end"));
    const baselineAgain = baselineGroups.filter((group) => group.kind === "latest").map((group) => ({ ...group, label: "no cursor, now" }));
    printResults(options.requestsPerGroup, baselineResults, await readAll(api, [...again, ...baselineAgain], options.requestsPerGroup));
    await printPlans(databaseUrl, large.sessionId, `no cursor, with ${options.otherMessages.toLocaleString("en")} newer messages of other sessions`, { limit: PAGE });
  } finally {
    await client.end();
  }
}

/** The reads measured: newest page, and cursors near the start, middle and end of the large session. */
function pageReads(large: Seeded, baseline: Seeded, requests: number): { baselineGroups: Group[]; largeGroups: Group[] } {
  const n = large.size;
  // Cursor positions that leave a whole page on either side; small BENCH_MESSAGES shrink the regions.
  const within = (low: number, high: number) => [Math.max(PAGE + 1, low), Math.min(n - PAGE, high)] as const;
  const regions = {
    start: within(PAGE + 1, 10_000),
    middle: within(Math.floor(n / 2) - 5_000, Math.floor(n / 2) + 5_000),
    end: within(n - 10_000, n - PAGE),
  } as const;
  const repeat = (position: number) => Array.from({ length: requests }, () => position);
  return {
    baselineGroups: [
      { label: "no cursor (newest 100)", kind: "latest", session: baseline, positions: [] },
      { label: "after the oldest", kind: "after", session: baseline, positions: repeat(1) },
      { label: "before the newest", kind: "before", session: baseline, positions: repeat(baseline.size) },
    ],
    largeGroups: [
      { label: "no cursor (newest 100)", kind: "latest", session: large, positions: [] },
      ...(["start", "middle", "end"] as const).flatMap((region): Group[] => [
        { label: `after, near the ${region}`, kind: "after", session: large, positions: evenlySpaced(...regions[region], requests) },
        { label: `before, near the ${region}`, kind: "before", session: large, positions: evenlySpaced(...regions[region], requests) },
      ]),
    ],
  };
}

async function readAll(api: ApiUnderTest, groups: Group[], requests: number): Promise<GroupResult[]> {
  const results: GroupResult[] = [];
  for (const group of groups) results.push(await read(api, group, requests));
  return results;
}

function planOf(session: Seeded): SeedPlan {
  return { sessionIds: [session.sessionId], seedingNumber: session.seedingNumber, count: session.size };
}

/** Seeds in order (the first plan gets the oldest messages), then ANALYZE. */
async function timedSeed(client: pg.Client, plans: SeedPlan[]): Promise<void> {
  const started = performance.now();
  for (const [index, plan] of plans.entries()) {
    await seedMessages(client, plan, index === 0 ? (inserted) => process.stdout.write(` ${inserted.toLocaleString("en")}`) : undefined);
  }
  const inserted = performance.now();
  await client.query(`ANALYZE "Message"`);
  const { rows } = await client.query<{ rows: string; table: string; indexes: string }>(
    `SELECT (SELECT count(*) FROM "Message")::text AS rows, pg_size_pretty(pg_table_size('"Message"')) AS table, pg_size_pretty(pg_indexes_size('"Message"')) AS indexes`,
  );
  console.log(
    `\ninserted in ${((inserted - started) / 1000).toFixed(1)} s, ANALYZE ${((performance.now() - inserted) / 1000).toFixed(1)} s; ` +
      `"Message" now holds ${Number(rows[0]?.rows).toLocaleString("en")} rows, table ${rows[0]?.table}, indexes ${rows[0]?.indexes}`,
  );
}

/** The baseline rows, then the others with their ratio to the baseline read of the same kind. */
function printResults(requests: number, baselineResults: GroupResult[], results: GroupResult[]): void {
  console.log(`\npage of ${PAGE} (limit=${PAGE}), ${requests} sequential requests per row (1 connection), cursors spread evenly over each region`);
  console.log("session         read                          p50       p90       p99       max  SQL/req  vs 100-msg session (p50, p99)");
  const line = ({ group, result, statementsPerRequest }: GroupResult, versus: string) =>
    console.log(
      [
        `${group.session.size.toLocaleString("en")} msgs`.padEnd(15),
        group.label.padEnd(26),
        ms(result.latencyMs.p50).padStart(9),
        ms(result.latencyMs.p90).padStart(9),
        ms(result.latencyMs.p99).padStart(9),
        ms(result.latencyMs.max).padStart(9),
        statementsPerRequest.toFixed(2).padStart(8),
        ` ${versus}`,
      ].join(" "),
    );
  for (const result of baselineResults) line(result, "baseline");
  for (const result of results) {
    const base = baselineResults.find((candidate) => candidate.group.kind === result.group.kind);
    line(result, base ? `${ratio(result.result.latencyMs.p50 / base.result.latencyMs.p50)}, ${ratio(result.result.latencyMs.p99 / base.result.latencyMs.p99)}` : "");
  }
}

async function printPlans(databaseUrl: string, sessionId: string, title: string, query: MessagePageQuery): Promise<void> {
  const plans = await explainMessagePage(databaseUrl, sessionId, query);
  console.log(`\n-- ${title}: ${plans.length} statement(s)`);
  for (const statement of plans) {
    console.log(`${shortSql(statement.sql)}\n   params ${JSON.stringify(statement.params)}`);
    for (const line of statement.plan) console.log(`   ${line}`);
  }
  const page = plans.at(-1)?.plan ?? [];
  const index = page.map((line) => /Index Scan(?: Backward)? using "([^"]+)"/.exec(line)?.[1]).find(Boolean) ?? "none";
  // Whether the session bounds the scan (an index condition) or only filters the rows it reads.
  const bounded = page.some((line) => /Index Cond: .*"sessionId"/.test(line));
  const filtered = page.some((line) => /Filter: .*"sessionId"/.test(line));
  const how = bounded ? ", bounded to the session's rows" : filtered ? ", reading other sessions' rows and filtering them out" : "";
  console.log(`   => the page query walks ${index}${how}`);
}

function pathOf(group: Group, position: number | undefined): string {
  const base = `/v3/sessions/${group.session.sessionId}/messages?limit=${PAGE}`;
  return position === undefined ? base : `${base}&${group.kind}=${seededMessageId(group.session.seedingNumber, position)}`;
}

async function read(api: ApiUnderTest, group: Group, count: number): Promise<GroupResult> {
  const paths = group.positions.length > 0 ? group.positions.map((position) => pathOf(group, position)) : [pathOf(group, undefined)];
  const before = statementsSent();
  const result = await generateLoad({ origin: api.service.url, paths, headers: { authorization: `Bearer ${api.apiKey}` }, connections: 1, amount: count });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${group.label}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  return { group, result, statementsPerRequest: (statementsSent() - before) / Math.max(1, result.ok) };
}

const PageBody = z.object({ messages: z.array(z.object({ id: z.string() })) });

/** One request per group, checked: the page holds the messages right after/before the cursor (or the newest), oldest first. */
async function checkPage(api: ApiUnderTest, group: Group): Promise<void> {
  const position = group.positions[0];
  const { size, seedingNumber } = group.session;
  const response = await fetch(`${api.service.url}${pathOf(group, position)}`, { headers: { authorization: `Bearer ${api.apiKey}` } });
  const ids = response.status === 200 ? PageBody.parse(await response.json()).messages.map((message) => message.id) : [];
  const [first, last] =
    position === undefined
      ? [Math.max(1, size - PAGE + 1), size]
      : group.kind === "after"
        ? [position + 1, Math.min(size, position + PAGE)]
        : [Math.max(1, position - PAGE), position - 1];
  const expected = { first: seededMessageId(seedingNumber, first), last: seededMessageId(seedingNumber, last), count: last - first + 1 };
  if (ids[0] !== expected.first || ids.at(-1) !== expected.last || ids.length !== expected.count) {
    throw new Error(`${group.label}: expected ${JSON.stringify(expected)}, got ${response.status} with ${ids.length} messages from ${ids[0]} to ${ids.at(-1)}`);
  }
}

function evenlySpaced(from: number, to: number, count: number): number[] {
  if (count <= 1) return [from];
  return Array.from({ length: count }, (_, index) => Math.round(from + ((to - from) * index) / (count - 1)));
}
