/**
 * Checking daemon replies where they arrive (protocol §3–§5). Each call names the schema of
 * its route's reply (tools declare it with their route; custody's renew routes with the
 * renewers), so no tool or custody code ever touches an unchecked value. Reply schemas are
 * loose where the bridge reads only some fields: unknown keys pass through, and the record
 * the daemon sent is kept whole.
 */
import { z } from "zod";
import { invalidResponse } from "../shared/errors.ts";
import { get } from "./routes.ts";
import { quotedIssue } from "../shared/answer_bounds.ts";

/** What a route's successful reply must look like. */
export interface ReplySchema<Schema extends z.ZodType = z.ZodType> {
  /** The route as the protocol names it, e.g. `POST /v1/leases/{leaseId}/confirm`. */
  route: string;
  schema: Schema;
}

const healthReply = z.looseObject({
  softwareVersion: z.string(),
  protocol: z.looseObject({ minimum: z.int(), maximum: z.int() }),
  capabilities: z.array(z.string()),
  pid: z.int(),
  mode: z.string(),
});

/** The compatibility probe's route (also `portreeve_health`'s). */
export const HEALTH_ROUTE = get("/v1/health", healthReply);

/**
 * Checks `data` from a successful reply to `method path` against `reply`. A call without a
 * schema is a bridge bug (every route the bridge calls declares one), so it is refused rather
 * than trusted.
 */
export function checkReply<Schema extends z.ZodType>(
  reply: ReplySchema<Schema> | undefined,
  method: string,
  path: string,
  data: unknown,
): z.output<Schema> {
  if (!reply) {
    throw new Error(
      `no reply schema for ${method} ${path.split("?")[0]}; declare it with the route`,
    );
  }
  const checked = reply.schema.safeParse(data);
  if (checked.success) {
    // The daemon's record whole, not the parsed copy (which drops keys a schema does not
    // name). It is the schema's output because no reply schema transforms a valid value
    // (tests/unit/daemon/replies_test.ts walks every one).
    return data as z.output<Schema>;
  }
  const issues = checked.error.issues.slice(0, 10).map(quotedIssue);
  const first = issues[0];
  const at = first ? `, ${first.path || "data"}: ${first.message}` : "";
  throw invalidResponse(`${reply.route} answered data of the wrong shape${at}`, {
    route: reply.route,
    issues,
  });
}
