import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("smoke", () => {
  it("r2 conditional put", async () => {
    const b = env.BUCKET as R2Bucket;
    expect(await b.put("k", "v", { onlyIf: { etagDoesNotMatch: "*" } })).not.toBeNull();
    expect(await b.put("k", "v", { onlyIf: { etagDoesNotMatch: "*" } })).toBeNull();
  });
});

import type { Bucket } from "../../storage/api.ts";
export const _bucketSeamAcceptsR2: (b: R2Bucket) => Bucket = (b) => b;
