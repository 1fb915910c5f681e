/**
 * LakeWriter: one Durable Object per lake (addressed by `idFromName(lake)`), the lake's single writer.
 * Every RPC method answers with an envelope (see envelope.ts).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env.ts";
import { type Envelope, enveloped } from "./envelope.ts";

export interface WriterStatus {
  lake: string;
  instanceStartedAt: string;
  requestsServed: number;
}

export class LakeWriter extends DurableObject<Env> {
  private readonly startedAt = new Date().toISOString();
  private served = 0;

  async status(lake: string): Promise<Envelope<WriterStatus>> {
    return enveloped(async () => {
      this.served++;
      return { lake, instanceStartedAt: this.startedAt, requestsServed: this.served };
    });
  }
}
