/** A lake with one table `main.events (id int64, v varchar)` for the rows API tests, keyed on `id` or not. */
import { expect } from "vitest";
import { call } from "./http.ts";

export async function lakeWithTable(lake: string, keyed: boolean): Promise<void> {
  expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
  const c = await call(`/v1/lakes/${lake}/commits`, {
    method: "POST",
    body: {
      verbs: [
        {
          op: "create_table",
          name: "events",
          columns: [
            { name: "id", type: "int64" },
            { name: "v", type: "varchar" },
          ],
        },
        ...(keyed ? [{ op: "set_row_key", table: { name: "events" }, columns: ["id"] }] : []),
      ],
    },
  });
  expect(c.status).toBe(200);
}

/** The rows route of that table. */
export const rowsPath = (lake: string): string => `/v1/lakes/${lake}/tables/main/events/rows`;
