/** The Worker's view of lake existence: a read or write for a lake that is absent or deleted is a 404. */
import { purgeHint } from "../durable-objects/errors.ts";
import type { CodedError } from "../storage/errors.ts";
import { lakeState } from "../storage/lakes.ts";
import type { Env } from "./env.ts";
import { notFound } from "./errors.ts";

export async function requireLiveLake(env: Env, lake: string): Promise<void> {
  const state = await lakeState(env.BUCKET, lake);
  if (state.state === "absent")
    throw notFound(`lake '${lake}' does not exist; create it first (PUT /v1/lakes/${lake})`);
  if (state.state === "deleted") {
    throw notFound(
      `lake '${lake}' was deleted at ${new Date(state.deletedAt).toISOString()} and is being removed; ${purgeHint(lake)}`,
    );
  }
}

/**
 * An error's message for a client: storage's `LakeDeleted` (raised by readers, which know no routes) gains
 * the way an admin frees the name (docs/decisions/0480-lake-purge.md); every other message is unchanged.
 */
export function clientMessage(err: CodedError, lake: string | undefined): string {
  if (err.code !== "LakeDeleted" || lake === undefined || err.message.includes("purge")) return err.message;
  return `${err.message}; ${purgeHint(lake)}`;
}
