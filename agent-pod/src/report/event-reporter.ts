import { randomUUID } from "node:crypto";
import type { AgentEvent, EventBatchResult } from "@browser-agents/protocol";
import { SessionGoneError } from "./api-client.js";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event as the agent loop produces it; the reporter gives it its id and task number. */
export type AgentEventDraft = DistributiveOmit<AgentEvent, "eventId" | "taskNumber" | "hidden"> & { hidden?: boolean };

export interface EventSink {
  postEvents(events: AgentEvent[]): Promise<EventBatchResult>;
}

export interface EventReporterOptions {
  flushIntervalMs?: number;
  maxBatchSize?: number;
  /** Events kept while the API is unreachable; beyond it the oldest are dropped. */
  maxQueued?: number;
  onError?: (error: unknown) => void;
  /** Each answer says where the session stands, so the caller can abandon a task that is over. */
  onBatchResult?: (result: EventBatchResult) => void;
}

/**
 * Batches events and sends them in order. Each event gets its UUID when queued, so a batch
 * retried after a lost response is applied once by the API.
 */
export class EventReporter {
  private queue: AgentEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();
  private gone: SessionGoneError | null = null;
  private readonly flushIntervalMs: number;
  private readonly maxBatchSize: number;
  private readonly maxQueued: number;

  constructor(
    private readonly sink: EventSink,
    private readonly options: EventReporterOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 300;
    this.maxBatchSize = options.maxBatchSize ?? 100;
    this.maxQueued = options.maxQueued ?? 5_000;
  }

  add(taskNumber: number, draft: AgentEventDraft): void {
    if (this.gone) return;
    const event = { ...draft, eventId: randomUUID(), taskNumber } as AgentEvent;
    if (event.kind === "message") event.hidden = draft.hidden ?? false;
    this.queue.push(event);
    if (this.queue.length > this.maxQueued) this.queue.splice(0, this.queue.length - this.maxQueued);
    // A finished step closes a batch: its messages went first, and callers polling see it at once.
    if (this.queue.length >= this.maxBatchSize || event.kind === "step") {
      void this.flush().catch((error: unknown) => this.options.onError?.(error));
    } else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush().catch((error: unknown) => this.options.onError?.(error));
      }, this.flushIntervalMs);
    }
  }

  /** Sends everything queued so far; rejects with SessionGoneError once the API forgot the session. */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const next = this.sending.catch(() => undefined).then(() => this.sendQueued());
    this.sending = next;
    return next;
  }

  private async sendQueued(): Promise<void> {
    if (this.gone) throw this.gone;
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.maxBatchSize);
      let answer: EventBatchResult;
      try {
        answer = await this.sink.postEvents(batch);
      } catch (error) {
        if (error instanceof SessionGoneError) {
          this.gone = error;
          this.queue = [];
        }
        // Anything else: the batch stays queued, with the same ids, for the next flush.
        throw error;
      }
      this.queue.splice(0, batch.length);
      this.options.onBatchResult?.(answer);
    }
  }

  get pending(): number {
    return this.queue.length;
  }
}
