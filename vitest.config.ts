import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        // Tests exercise auth with known tokens; the deployed config never sees these.
        bindings: {
          AUTH_TOKENS: JSON.stringify({
            "t-admin-all": { lakes: ["*"], scope: "admin" },
            "t-write-sales": { lakes: ["sales"], scope: "write" },
            "t-read-sales": { lakes: ["sales"], scope: "read" },
          }),
        },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
