/**
 * The per-isolate cache of verified connection ids (docs/decisions/0642-verified-connection-cache.md): a
 * cached id is still refused once its token is revoked, its secret rotated or its expiry passed, and the
 * cache never holds more than its bound.
 */
import { describe, expect, it } from "vitest";
import { openSession, resumeSession } from "../../../worker/quack/session.ts";
import {
  MAX_VERIFIED_CONNECTIONS,
  verifiedConnectionCount,
} from "../../../worker/quack/verified-connections.ts";

const TOKEN = "t-cached-0123456789";
const before = {
  AUTH_TOKENS: JSON.stringify({ [TOKEN]: { lakes: ["sales"], scope: "write" } }),
  QUACK_SESSION_SECRET: "cache-k",
};

describe("verified connection ids", () => {
  it("refuses a cached connection once its token is revoked, and sees a downgrade", async () => {
    const { connectionId } = await openSession(before, `sales:${TOKEN}`, 1000);
    expect((await resumeSession(before, connectionId, 2000)).grant.scope).toBe("write");
    expect((await resumeSession(before, connectionId, 3000)).grant.scope).toBe("write");
    const revoked = {
      ...before,
      AUTH_TOKENS: JSON.stringify({ "t-someone-else-0123456789": { lakes: ["sales"], scope: "write" } }),
    };
    await expect(resumeSession(revoked, connectionId, 4000)).rejects.toThrow(/no longer valid/);
    const downgraded = {
      ...before,
      AUTH_TOKENS: JSON.stringify({ [TOKEN]: { lakes: ["sales"], scope: "read" } }),
    };
    expect((await resumeSession(downgraded, connectionId, 5000)).grant.scope).toBe("read");
    // Back to the first configuration: the entry verified under `downgraded` must not answer for it.
    expect((await resumeSession(before, connectionId, 6000)).grant.scope).toBe("write");
  });

  it("refuses a cached connection once the signing secret rotates", async () => {
    const { connectionId } = await openSession(before, `sales:${TOKEN}`, 1000);
    await resumeSession(before, connectionId, 2000);
    const rotated = { ...before, QUACK_SESSION_SECRET: "cache-k2" };
    await expect(resumeSession(rotated, connectionId, 3000)).rejects.toThrow(/Invalid connection id/);
  });

  it("refuses a cached connection after its own expiry", async () => {
    const { connectionId, session } = await openSession(before, `sales:${TOKEN}`, 1000);
    await resumeSession(before, connectionId, 2000);
    const expiry = Math.floor(session.expiresAt / 1000) * 1000;
    await expect(resumeSession(before, connectionId, expiry)).rejects.toThrow(/expired/);
  });

  it("holds at most MAX_VERIFIED_CONNECTIONS ids, and a dropped one still verifies in full", async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_VERIFIED_CONNECTIONS + 8; i++) {
      const { connectionId } = await openSession(before, `sales:${TOKEN}`, 1000);
      await resumeSession(before, connectionId, 2000);
      ids.push(connectionId);
      expect(verifiedConnectionCount()).toBeLessThanOrEqual(MAX_VERIFIED_CONNECTIONS);
    }
    expect(verifiedConnectionCount()).toBe(MAX_VERIFIED_CONNECTIONS);
    expect((await resumeSession(before, ids[0] as string, 3000)).lake).toBe("sales");
    await expect(resumeSession(before, `${ids[1] as string}x`, 3000)).rejects.toThrow(/Invalid/);
  });
});
