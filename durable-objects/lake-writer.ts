import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env.ts";

export class LakeWriter extends DurableObject<Env> {
  async ping(): Promise<string> {
    return "pong";
  }
}
