/** The Worker's view of lake existence: a read or write for a lake that is absent or deleted is a 404. */
import { lakeState } from "../storage/lakes.ts";
import type { Env } from "./env.ts";
import { notFound } from "./errors.ts";

export async function requireLiveLake(env: Env, lake: string): Promise<void> {
  const state = await lakeState(env.BUCKET, lake);
  if (state.state === "absent")
    throw notFound(`lake '${lake}' does not exist; create it first (PUT /v1/lakes/${lake})`);
  if (state.state === "deleted") {
    throw notFound(
      `lake '${lake}' was deleted at ${new Date(state.deletedAt).toISOString()} and is being removed`,
    );
  }
}
