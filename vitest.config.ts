import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
