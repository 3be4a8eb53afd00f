import { EventEmitter } from "node:events";
import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
  createServer,
} from "node:http";
import type { AddressInfo } from "node:net";
import { ChatRequest, messageText } from "./chat-request.js";
import { chatCompletion, openAiError } from "./chat-completion.js";
import { countAssistantTurns, createScriptContext } from "./script-context.js";
import type { FakeLlmScript, ScriptReply, ScriptResult, ToolCallsReply, Usage } from "./script-types.js";
import { ScriptReplyError, checkOfferedTools, waitUnlessAborted } from "./reply-checks.js";

export interface FakeLlmOptions {
  scripts: FakeLlmScript[];
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401. */
  apiKey?: string;
  /** Ids listed by GET /v1/models. */
  models?: string[];
}

export type RequestOutcome = "pending" | "answered" | "aborted" | "closed";

export interface RecordedRequest {
  seq: number;
  method: string;
  /** Path with query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON, undefined when empty or not JSON. */
  body: unknown;
  /** The body as a chat request, when it was one. */
  chat?: ChatRequest;
  scriptName?: string;
  turn?: number;
  attempt?: number;
  /** pending while a script delays; aborted: the client gave up; closed: the server closed first. */
  outcome: RequestOutcome;
  response?: { status: number; body: unknown };
  /** Why the fake refused the request (no script, script threw, bad body...). */
  error?: string;
  /** Epoch ms when the whole body had arrived (benchmarks measure the client's time between calls). */
  receivedAt: number;
  /** Epoch ms when the response was about to be written; unset while pending or when never answered. */
  answeredAt?: number;
}

export interface FakeLlm {
  /** e.g. `http://127.0.0.1:40123/v1` */
  baseUrl: string;
  /** Every request, in arrival order; recorded when its body has arrived, updated when answered. */
  requests: RecordedRequest[];
  addScript(script: FakeLlmScript): void;
  /** Resolves with the first request (past or future) satisfying predicate; rejects after timeoutMs. */
  waitForRequest(
    predicate?: (request: RecordedRequest) => boolean,
    timeoutMs?: number,
  ): Promise<RecordedRequest>;
  /** Chat requests only, in order. */
  chatRequests(): RecordedRequest[];
  /** True when text appears in any recorded header, raw body, decoded body string or response. */
  sawText(text: string): boolean;
  /** Sum of the usage of every answered chat completion. */
  totalUsage(): Usage;
  close(): Promise<void>;
}

export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  const scripts = [...options.scripts];
  const models = options.models ?? ["fake-model"];
  const requests: RecordedRequest[] = [];
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const inFlight = new Set<AbortController>();
  const attempts = new Map<string, number>();
  let closing = false;

  const update = (record: RecordedRequest, patch: Partial<RecordedRequest>): void => {
    Object.assign(record, patch);
    changes.emit("change");
  };
  const send = (
    res: ServerResponse,
    record: RecordedRequest,
    status: number,
    body: unknown,
    error?: string,
  ): void => {
    update(record, { outcome: "answered", response: { status, body }, answeredAt: Date.now(), ...(error ? { error } : {}) });
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const answerChat = async (
    record: RecordedRequest,
    res: ServerResponse,
    signal: AbortSignal,
  ): Promise<void> => {
    const parsed = ChatRequest.safeParse(record.body);
    if (!parsed.success) {
      const message = `not a chat completion request: ${parsed.error.message}`;
      return send(res, record, 400, openAiError(message, "invalid_request_error"), message);
    }
    const request = parsed.data;
    update(record, { chat: request, turn: countAssistantTurns(request.messages) });
    if (request.stream) {
      const message = "the fake LLM does not stream; send stream: false";
      return send(res, record, 400, openAiError(message, "invalid_request_error"), message);
    }
    const chosen = chooseScript(scripts, request);
    if (!chosen) {
      const task = taskCandidates(request)[0] ?? "";
      const message =
        `no fake LLM script matches the task ${JSON.stringify(task.slice(0, 300))}; ` +
        `scripts: ${scripts.map((s) => `${s.name} ${String(s.match)}`).join(", ") || "(none)"}`;
      return send(res, record, 400, openAiError(message, "fake_llm_no_script"), message);
    }
    const { script, task } = chosen;
    const turn = countAssistantTurns(request.messages);
    const attemptKey = `${script.name}\u0000${task}\u0000${turn}`;
    const attempt = attempts.get(attemptKey) ?? 0;
    attempts.set(attemptKey, attempt + 1);
    update(record, { scriptName: script.name, attempt });

    let reply: ScriptReply;
    try {
      const ctx = createScriptContext({ request, headers: record.headers, task, attempt });
      reply = mergeResult(await script.respond(ctx));
      while (reply.kind === "delay") {
        const ended = await waitUnlessAborted(reply.ms, signal);
        if (ended !== "elapsed") {
          update(record, { outcome: ended });
          return;
        }
        if (!reply.then) throw new ScriptReplyError("a finite delay needs a reply to send after it");
        reply = reply.then;
      }
      if (reply.kind === "tool_calls") checkOfferedTools(request, reply);
    } catch (error) {
      const message = `fake LLM script "${script.name}" (turn ${turn}) failed: ${
        error instanceof Error ? error.message : String(error)
      }`;
      return send(res, record, 400, openAiError(message, "fake_llm_script_error"), message);
    }
    if (reply.kind === "http_error") return send(res, record, reply.status, reply.body);
    return send(res, record, 200, chatCompletion(request, reply, record.seq));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const rawBody = await readBody(req);
    const record: RecordedRequest = {
      receivedAt: Date.now(),
      seq: requests.length,
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      rawBody,
      body: parseJson(rawBody),
      outcome: "pending",
    };
    requests.push(record);
    changes.emit("change");

    const controller = new AbortController();
    inFlight.add(controller);
    res.on("close", () => {
      if (!res.writableFinished) controller.abort(closing ? "closed" : "aborted");
      inFlight.delete(controller);
    });

    const path = record.path.split("?")[0];
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      const message = "Incorrect API key provided to the fake LLM";
      return send(res, record, 401, openAiError(message, "invalid_request_error", "invalid_api_key"), message);
    }
    if (req.method === "GET" && path === "/v1/models") {
      const data = models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake-llm" }));
      return send(res, record, 200, { object: "list", data });
    }
    if (req.method === "POST" && path === "/v1/chat/completions") {
      return answerChat(record, res, controller.signal);
    }
    const message = `the fake LLM has no route ${req.method} ${path}`;
    return send(res, record, 404, openAiError(message, "not_found"), message);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    addScript: (script) => scripts.push(script),
    waitForRequest: (predicate = () => true, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = requests.find(predicate);
          if (!found) return false;
          clearTimeout(timer);
          changes.off("change", check);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          changes.off("change", check);
          reject(new Error(`no matching fake LLM request within ${timeoutMs} ms (${requests.length} recorded)`));
        }, timeoutMs);
        if (!check()) changes.on("change", check);
      }),
    chatRequests: () => requests.filter((r) => r.path.startsWith("/v1/chat/completions")),
    sawText: (text) => requests.some((r) => recordedStrings(r).some((s) => s.includes(text))),
    totalUsage: () => sumUsage(requests),
    close: async () => {
      closing = true;
      for (const controller of inFlight) controller.abort("closed");
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The first user message decides; all system and user messages are the fallback. */
function taskCandidates(request: ChatRequest): string[] {
  const prompts = request.messages.filter((m) => m.role !== "assistant" && m.role !== "tool");
  const firstUser = prompts.find((m) => m.role === "user");
  const all = prompts.map(messageText).join("\n");
  return firstUser ? [messageText(firstUser), all] : [all];
}

function chooseScript(
  scripts: FakeLlmScript[],
  request: ChatRequest,
): { script: FakeLlmScript; task: string } | undefined {
  for (const task of taskCandidates(request)) {
    const script = scripts.find((s) => new RegExp(s.match.source, s.match.flags.replace(/[gy]/g, "")).test(task));
    if (script) return { script, task };
  }
  return undefined;
}

function mergeResult(result: ScriptResult): ScriptReply {
  if (!Array.isArray(result)) return result;
  if (result.length === 0) throw new ScriptReplyError("returned an empty list of tool calls");
  const merged: ToolCallsReply = { kind: "tool_calls", calls: result.flatMap((r) => r.calls) };
  const content = result.map((r) => r.content).filter((c) => c !== undefined).join("\n");
  return content ? { ...merged, content } : merged;
}

function recordedStrings(record: RecordedRequest): string[] {
  const headerValues = Object.values(record.headers).flat().filter((v): v is string => typeof v === "string");
  return [
    record.rawBody,
    ...headerValues,
    ...stringLeaves(record.body),
    ...(record.response ? [JSON.stringify(record.response.body), ...stringLeaves(record.response.body)] : []),
  ];
}

function stringLeaves(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringLeaves);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(stringLeaves);
  return [];
}

function sumUsage(requests: RecordedRequest[]): Usage {
  const total: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  for (const r of requests) {
    const usage = (r.response?.body as { usage?: Usage } | undefined)?.usage;
    if (r.response?.status !== 200 || !usage) continue;
    total.prompt_tokens += usage.prompt_tokens;
    total.completion_tokens += usage.completion_tokens;
  }
  return total;
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
