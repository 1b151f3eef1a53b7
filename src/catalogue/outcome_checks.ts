/**
 * Which read shows whether a mutation took effect, for when its answer was lost (the daemon
 * received it, but the reply was garbage, cut off, oversize or late). The agent is told the
 * exact tool to call instead of guessing, or retrying into a conflict. Each state-changing
 * route names its check where it is declared (`post(…, check)` in its tool's family); the
 * kinds shared by many routes are made here.
 */
import { BridgeError } from "../shared/errors.ts";
import type { OutcomeCheck, Route } from "./routes.ts";

export type { OutcomeCheck };

/** Executes are replayed by receipt, so repeating one is the other safe check. */
export function executeCheck(tool: string, scope: string): OutcomeCheck {
  return {
    tool,
    how: `${scope ? `${scope} ` : ""}to see the current state, or repeat this execute with ` +
      "the same receipt: the daemon replays a receipt it already executed",
  };
}

/** A preview changes nothing but its receipt: asking again is the check. */
export const PREVIEW_CHECK: OutcomeCheck = {
  tool: "the same preview",
  how: "again: a preview changes nothing but its receipt",
};

/**
 * Names the read that settles an unknown outcome in `error`'s details (the next step,
 * error_codes.ts, tells the agent to call it first); other errors pass unchanged.
 */
export function withOutcomeCheck(error: unknown, route: Route): unknown {
  if (!(error instanceof BridgeError) || error.details.outcome !== "unknown") return error;
  const check = route.check;
  if (!check) return error;
  return new BridgeError(error.code, error.message, error.retryable, {
    ...error.details,
    checkWith: check.tool,
    checkHow: check.how,
  });
}
