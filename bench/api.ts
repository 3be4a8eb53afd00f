// npm run bench:api: getSession against a bare Fastify route, and message pages in a session of a
// million messages. Everything runs on 127.0.0.1; see docs/benchmarks.md.
import { startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";
import { openBenchDatabase, type BenchDatabase } from "./support/bench-postgres.js";
import { readBenchSettings } from "./support/api-settings.js";
import { benchGetSession } from "./support/get-session-bench.js";
import { describeMachine } from "./support/machine-facts.js";
import { benchMessagePages } from "./support/message-pages-bench.js";
import { installQueryCounter } from "./support/query-counter.js";

const settings = readBenchSettings(process.env);
installQueryCounter();

let database: BenchDatabase | undefined;
let api: ApiUnderTest | undefined;
let cleaning: Promise<void> | undefined;
const cleanUp = () =>
  (cleaning ??= (async () => {
    await api?.close().catch((error: unknown) => console.error("closing the API failed:", error));
    await database?.close().catch((error: unknown) => console.error("removing the database failed:", error));
  })());

const abandon = (reason: string) => {
  console.error(`\nbench:api abandoned: ${reason}`);
  void cleanUp().finally(() => process.exit(1));
};
const deadline = setTimeout(() => abandon(`still running after ${settings.BENCH_DEADLINE_SECONDS} s`), settings.BENCH_DEADLINE_SECONDS * 1000);
deadline.unref();
process.once("SIGINT", () => abandon("interrupted"));
process.once("SIGTERM", () => abandon("terminated"));

try {
  const started = performance.now();
  database = await openBenchDatabase(settings.BENCH_DATABASE_URL);
  console.log("# bench:api\n");
  for (const line of await describeMachine(database.databaseUrl)) console.log(line);
  console.log(`database     ${database.source}, throwaway database`);

  api = await startApiUnderTest(database.databaseUrl);
  console.log(`API pool     ${api.poolSize} connections (DATABASE_POOL_SIZE), shared by the bare route`);

  console.log("\n## 1. getSession under load vs a bare Fastify route\n");
  await benchGetSession(api, {
    connections: settings.BENCH_CONNECTIONS,
    warmupSeconds: settings.BENCH_WARMUP_SECONDS,
    durationSeconds: settings.BENCH_DURATION_SECONDS,
    rounds: settings.BENCH_ROUNDS,
  });

  console.log(`\n## 2. One page of messages in a session of ${settings.BENCH_MESSAGES.toLocaleString("en")}`);
  await benchMessagePages(api, database.databaseUrl, {
    messages: settings.BENCH_MESSAGES,
    baselineMessages: 100,
    requestsPerGroup: settings.BENCH_PAGE_REQUESTS,
    otherMessages: settings.BENCH_OTHER_MESSAGES,
    otherSessions: 100,
  });
  console.log(`\nbench:api finished in ${((performance.now() - started) / 1000).toFixed(0)} s`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await cleanUp();
}
