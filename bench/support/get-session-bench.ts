// Part 1: getSession (GET /v3/sessions/:id: auth hook, zod, Prisma, Postgres) against bare Fastify
// routes on the same Prisma client, with the same load generator, concurrency and duration.
import type { ApiUnderTest } from "./api-under-test.js";
import { BARE_SAME_QUERIES_PATH, BARE_SESSION_PATH, startBareServer } from "./bare-server.js";
import { generateLoad } from "./load-generator.js";
import type { LoadResult } from "./load-protocol.js";
import { statementsSent } from "./query-counter.js";
import { ms, ratio } from "./latency-stats.js";

export interface GetSessionBenchOptions {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
}

type TargetName = "getSession" | "bare" | "bare+queries";

interface Target {
  name: TargetName;
  description: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
}

interface Measured {
  result: LoadResult;
  statementsPerRequest: number;
  /** CPU time (user + system) of this process, which runs the servers and Prisma, per response. */
  cpuMicrosPerRequest: number;
}

type Round = Record<TargetName, Measured>;

export async function benchGetSession(api: ApiUnderTest, options: GetSessionBenchOptions): Promise<void> {
  const sessionId = await api.createSession("getSession");
  const bare = await startBareServer(api.service.db, api.service.sessions);
  try {
    const auth = { authorization: `Bearer ${api.apiKey}` };
    const targets: Target[] = [
      { name: "getSession", description: "the API route", origin: api.service.url, path: `/v3/sessions/${sessionId}`, headers: auth },
      { name: "bare", description: "bare Fastify, the session row by id only", origin: bare.url, path: `${BARE_SESSION_PATH}${sessionId}`, headers: {} },
      {
        name: "bare+queries",
        description: "bare Fastify, getSession's statements (identifyApiKey + SessionService.find), no hook/zod/view",
        origin: bare.url,
        path: `${BARE_SAME_QUERIES_PATH}${sessionId}`,
        headers: auth,
      },
    ];
    for (const target of targets) await checkTarget(target, sessionId);

    console.log(`\nwarm-up: ${options.warmupSeconds} s per route, ${options.connections} connections`);
    for (const target of targets) await measure(target, options.connections, options.warmupSeconds);

    const rounds: Round[] = [];
    for (let round = 1; round <= options.rounds; round += 1) {
      const measured: Partial<Round> = {};
      for (const target of targets) measured[target.name] = await measure(target, options.connections, options.durationSeconds);
      rounds.push(measured as Round);
    }

    console.log(
      `\nmeasured: ${options.rounds} round(s) of ${options.durationSeconds} s per route, routes in turn, ` +
        `${options.connections} connections (autocannon in its own process)`,
    );
    console.log("round  route          req/s      p50       p90       p99       max  SQL/req  CPU µs/req  non-2xx  errors");
    rounds.forEach((round, index) => {
      for (const target of targets) console.log(formatRow(index + 1, target.name, round[target.name]));
    });

    console.log("\nratios, getSession / bare (throughput; p50 and p99 latency):");
    rounds.forEach((round, index) => console.log(`  round ${index + 1}: ${compare(round.getSession, round.bare)}`));
    const rate = (name: TargetName) => sum(rounds.map((round) => round[name].result.ok)) / sum(rounds.map((round) => round[name].result.durationSeconds));
    console.log(
      `  all rounds: getSession ${rate("getSession").toFixed(0)} req/s, bare ${rate("bare").toFixed(0)} req/s: ` +
        `throughput ratio ${ratio(rate("getSession") / rate("bare"))}`,
    );
    const cpu = (name: TargetName) =>
      sum(rounds.map((round) => round[name].cpuMicrosPerRequest * round[name].result.ok)) / sum(rounds.map((round) => round[name].result.ok));
    console.log("where the gap goes (all rounds): throughput ratio, and the API process's CPU per request");
    console.log(`  bare                      ${cpu("bare").toFixed(0).padStart(5)} µs  (HTTP + one Prisma query)`);
    console.log(
      `  bare+queries / bare       ${ratio(rate("bare+queries") / rate("bare"))}, ${(cpu("bare+queries") - cpu("bare")).toFixed(0).padStart(5)} µs more  ` +
        "(getSession's extra SQL statements)",
    );
    console.log(
      `  getSession / bare+queries ${ratio(rate("getSession") / rate("bare+queries"))}, ${(cpu("getSession") - cpu("bare+queries")).toFixed(0).padStart(5)} µs more  ` +
        "(auth hook, zod validation and serialisation, view mapping)",
    );
  } finally {
    await bare.close();
  }
}

function compare(a: Measured, b: Measured): string {
  return (
    `throughput ${ratio(a.result.requestsPerSecond / b.result.requestsPerSecond)}, ` +
    `p50 ${ratio(a.result.latencyMs.p50 / b.result.latencyMs.p50)}, p99 ${ratio(a.result.latencyMs.p99 / b.result.latencyMs.p99)}`
  );
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

async function checkTarget(target: Target, sessionId: string): Promise<void> {
  const response = await fetch(`${target.origin}${target.path}`, { headers: target.headers });
  const text = await response.text();
  if (response.status !== 200 || !text.includes(`"id":"${sessionId}"`)) throw new Error(`${target.name} answered ${response.status} ${text}`);
  console.log(`${target.name.padEnd(13)} GET ${target.path.replace(sessionId, ":id")}: 200, ${text.length} bytes; ${target.description}`);
}

async function measure(target: Target, connections: number, durationSeconds: number): Promise<Measured> {
  const before = statementsSent();
  const cpuBefore = process.cpuUsage();
  const result = await generateLoad({ origin: target.origin, paths: [target.path], headers: target.headers, connections, durationSeconds });
  const cpu = process.cpuUsage(cpuBefore);
  const statements = statementsSent() - before;
  if (result.non2xx > 0 || result.errors > 0) console.log(`  ! ${target.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  const responses = Math.max(1, result.ok + result.non2xx);
  return { result, statementsPerRequest: statements / responses, cpuMicrosPerRequest: (cpu.user + cpu.system) / responses };
}

function formatRow(round: number, name: string, { result, statementsPerRequest, cpuMicrosPerRequest }: Measured): string {
  const { latencyMs: latency } = result;
  return [
    String(round).padEnd(6),
    name.padEnd(13),
    result.requestsPerSecond.toFixed(0).padStart(6),
    ms(latency.p50).padStart(9),
    ms(latency.p90).padStart(9),
    ms(latency.p99).padStart(9),
    ms(latency.max).padStart(9),
    statementsPerRequest.toFixed(2).padStart(8),
    cpuMicrosPerRequest.toFixed(0).padStart(11),
    String(result.non2xx).padStart(8),
    String(result.errors).padStart(7),
  ].join(" ");
}
