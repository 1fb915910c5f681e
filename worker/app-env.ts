import type { Grant } from "./auth.ts";
import type { Env } from "./env.ts";

/** Hono's typing of this app: bindings plus per-request variables set by middleware. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    lake?: string;
    grant?: Grant;
    errorCode?: string;
  };
}
