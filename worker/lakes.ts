/** The Worker's view of lake existence: a read or write for a lake that is absent or deleted is a 404. */
import { purgeHint } from "../durable-objects/errors.ts";
import type { CodedError } from "../storage/errors.ts";
import { lakeState } from "../storage/lakes.ts";
import type { Env } from "./env.ts";
import { notFound } from "./errors.ts";

export async function requireLiveLake(env: Env, lake: string): Promise<void> {
  const state = await lakeState(env.BUCKET, lake);
  if (state.state === "absent") throw notFound(absentMessage(lake));
  if (state.state === "deleted") {
    throw notFound(
      `lake '${lake}' was deleted at ${new Date(state.deletedAt).toISOString()} and is being removed; ${purgeHint(lake)}`,
    );
  }
}

/**
 * An error's message for a client: storage's `LakeDeleted` (raised by readers, which know no routes) gains
 * the way an admin frees the name, and its `LakeNotFound` says the lake does not exist (docs/decisions/0480-lake-purge.md); every other message is unchanged.
 */
export function clientMessage(err: CodedError, lake: string | undefined): string {
  if (lake === undefined) return err.message;
  // A reader's "no WAL segment" is, to a user, a lake that was never created.
  if (err.code === "LakeNotFound") return absentMessage(lake);
  if (err.code !== "LakeDeleted" || err.message.includes("purge")) return err.message;
  return `${err.message}; ${purgeHint(lake)}`;
}

/** A lake that does not exist, and how to create it. */
export function absentMessage(lake: string): string {
  return `lake '${lake}' does not exist; check the name, or create it (PUT /v1/lakes/${lake}; CLI: ducklake-edge lakes create ${lake})`;
}
