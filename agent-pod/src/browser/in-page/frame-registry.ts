/// <reference lib="dom" />
// Evaluated inside page frames by Playwright, which serializes each exported function: every one
// must be self-contained (no imports, nothing from module scope) and use only what a page offers.

/** A child frame's position in its parent's document order, as an index into the registry's frames. */
export interface FrameSlot {
  frameSlot: number;
}

/** Where `frameElement` sits among the frames recorded by the last snapshot under `registryKey`. */
export function frameSlotOf(frameElement: Element, registryKey: string): number {
  const registry: unknown = Reflect.get(window, Symbol.for(registryKey));
  if (typeof registry !== "object" || registry === null || !("frames" in registry)) return -1;
  const frames = registry.frames;
  return Array.isArray(frames) ? frames.indexOf(frameElement) : -1;
}

/** The element stored at `index` by the last interactive-element snapshot, if it is still attached. */
export function registeredElement(args: { registryKey: string; index: number }): Element | null {
  const registry: unknown = Reflect.get(window, Symbol.for(args.registryKey));
  if (typeof registry !== "object" || registry === null || !("elements" in registry)) return null;
  const elements = registry.elements;
  if (!Array.isArray(elements)) return null;
  const element: unknown = elements[args.index];
  return element instanceof Element && element.isConnected ? element : null;
}
