import type { Frame, Page } from "playwright-core";
import { within } from "./abortable.js";
import { frameSlotOf, type FrameSlot } from "./in-page/frame-registry.js";

// A child frame that is still loading (a slow ad, a stalled widget) must not hold up the page state.
const CHILD_FRAME_TIMEOUT_MS = 3_000;
const MAIN_FRAME_TIMEOUT_MS = 10_000;

/** One item of a frame's snapshot, placed in the page-wide document order. */
export type PlacedItem<T> =
  | { kind: "item"; item: T; frame: Frame; indexInFrame: number; depth: number }
  | { kind: "frame"; url: string; depth: number };

export interface FrameTreeResult<T, S> {
  items: Array<PlacedItem<T>>;
  /** The main frame's whole snapshot (for page-level facts such as scroll position). */
  mainSnapshot: S;
}

function isFrameSlot(value: unknown): value is FrameSlot {
  return typeof value === "object" && value !== null && "frameSlot" in value;
}

/**
 * Snapshots every frame of the page (same-origin and out-of-process alike) and splices each child
 * frame's items into its parent at the child's iframe element, so the result is in document order.
 * A frame that fails to answer (detached, navigating) is left out rather than failing the page.
 */
export async function collectFrameTree<T, S extends { items: Array<T | FrameSlot> }>(
  page: Page,
  registryKey: string,
  snapshot: (frame: Frame) => Promise<S>,
): Promise<FrameTreeResult<T, S>> {
  const mainFrame = page.mainFrame();
  const frames = page.frames();
  const snapshots = new Map<Frame, S>();
  await Promise.all(
    frames.map(async (frame) => {
      const timeout = frame === mainFrame ? MAIN_FRAME_TIMEOUT_MS : CHILD_FRAME_TIMEOUT_MS;
      try {
        snapshots.set(frame, await within(snapshot(frame), timeout, `The page did not answer within ${timeout} ms`));
      } catch (error) {
        if (frame === mainFrame) throw error;
      }
    }),
  );
  const mainSnapshot = snapshots.get(mainFrame);
  if (mainSnapshot === undefined) throw new Error("The page did not answer");

  const childrenBySlot = new Map<Frame, Map<number, Frame>>();
  await Promise.all(
    frames.map(async (frame) => {
      const parent = frame.parentFrame();
      if (parent === null || !snapshots.has(frame) || !snapshots.has(parent)) return;
      const slot = await within(slotInParent(frame, registryKey), CHILD_FRAME_TIMEOUT_MS, "").catch(() => -1);
      if (slot < 0) return;
      const slots = childrenBySlot.get(parent) ?? new Map<number, Frame>();
      slots.set(slot, frame);
      childrenBySlot.set(parent, slots);
    }),
  );

  const items: Array<PlacedItem<T>> = [];
  const place = (frame: Frame, depth: number): void => {
    const frameSnapshot = snapshots.get(frame);
    if (frameSnapshot === undefined) return;
    let indexInFrame = 0;
    for (const entry of frameSnapshot.items) {
      if (isFrameSlot(entry)) {
        const child = childrenBySlot.get(frame)?.get(entry.frameSlot);
        if (child === undefined) continue;
        items.push({ kind: "frame", url: child.url(), depth: depth + 1 });
        place(child, depth + 1);
      } else {
        items.push({ kind: "item", item: entry, frame, indexInFrame, depth });
        indexInFrame += 1;
      }
    }
  };
  place(mainFrame, 0);
  return { items, mainSnapshot };
}

async function slotInParent(frame: Frame, registryKey: string): Promise<number> {
  try {
    const frameElement = await frame.frameElement();
    try {
      return await frameElement.evaluate(frameSlotOf, registryKey);
    } finally {
      await frameElement.dispose().catch(() => undefined);
    }
  } catch {
    return -1;
  }
}
