/** The headless flags every agent browser runs with (the pod's contract with its image). */
export const DEFAULT_CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * What Playwright itself passes when it launches Chromium, for the same reasons: we launch Chromium
 * ourselves (so live view can share its DevTools port) and lose those defaults otherwise.
 */
const AUTOMATION_FLAGS = [
  // Back/forward-cache restores fire no load events, which left go_back waiting forever.
  "--disable-back-forward-cache",
  // Background tabs and timers must keep running while the agent looks at another tab.
  "--disable-background-timer-throttling",
  "--disable-backgrounding-occluded-windows",
  "--disable-renderer-backgrounding",
  // A click that opens a window must open it, as it would for a person allowing pop-ups.
  "--disable-popup-blocking",
  "--disable-prompt-on-repost",
  "--disable-hang-monitor",
  "--disable-ipc-flooding-protection",
  // Container /dev/shm is small; Chromium crashes tabs when it runs out.
  "--disable-dev-shm-usage",
  "--disable-extensions",
  "--disable-default-apps",
  "--disable-breakpad",
  "--no-default-browser-check",
  "--password-store=basic",
  "--use-mock-keychain",
  "--disable-features=PaintHolding,ThirdPartyStoragePartitioning,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable," +
    "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,MediaRouter,OptimizationHints",
];

const FEATURE_LIST_FLAGS = ["--enable-features", "--disable-features"];

/**
 * Built-in flags followed by the configured extra ones. Chromium honours only the last
 * `--enable-features`/`--disable-features`, so those lists are merged into one flag each.
 */
export function chromiumFlags(extraFlags: readonly string[]): string[] {
  const flags: string[] = [];
  const features = new Map<string, string[]>();
  for (const flag of [...DEFAULT_CHROMIUM_FLAGS, ...AUTOMATION_FLAGS, ...extraFlags]) {
    const [name = "", value = ""] = flag.split(/=(.*)/s);
    if (!FEATURE_LIST_FLAGS.includes(name)) {
      flags.push(flag);
      continue;
    }
    const list = features.get(name) ?? [];
    for (const feature of value.split(",")) {
      if (feature !== "" && !list.includes(feature)) list.push(feature);
    }
    features.set(name, list);
  }
  for (const [name, list] of features) flags.push(`${name}=${list.join(",")}`);
  return flags;
}
