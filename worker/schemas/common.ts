/** Schemas shared by every route: the error envelope, lake path parameter, standard error responses. */
import { z } from "@hono/zod-openapi";
import { LAKE_NAME_PATTERN } from "../lake-name.ts";

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "NotFound" }),
      message: z.string().openapi({ example: "lake 'sales' does not exist" }),
      requestId: z.string().openapi({ example: "9f1c2b7e-2a51-4f7e-9a43-1c0f6a1d2e3b" }),
    }),
  })
  .openapi("ErrorEnvelope");

export const LakeParamSchema = z.object({
  lake: z
    .string()
    .regex(LAKE_NAME_PATTERN, "lake names are 1-63 lowercase letters, digits or '-'")
    .openapi({ param: { name: "lake", in: "path" }, example: "sales" }),
});

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorEnvelopeSchema } },
});

/** The failures every authenticated lake route can answer. */
export const lakeRouteErrors = {
  400: errorResponse("InvalidRequest: the request was malformed; nothing was written"),
  401: errorResponse("Unauthorized: missing or unknown bearer token"),
  403: errorResponse("Forbidden: the token does not cover this lake or scope"),
  404: errorResponse("NotFound"),
  413: errorResponse("PayloadTooLarge"),
  500: errorResponse("Internal or CommitOutcomeUnknown"),
  503: errorResponse("Unavailable: the lake writer is resetting or overloaded; retry after Retry-After"),
} as const;

export const bearerSecurity = [{ bearer: [] as string[] }];
