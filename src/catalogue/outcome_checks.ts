/**
 * Which read shows whether a mutation took effect, for when its answer was lost (the daemon
 * received it, but the reply was garbage, cut off, oversize or late). The agent is told the
 * exact tool to call instead of guessing, or retrying into a conflict. Keyed by the declared
 * route (`routes.ts`), so a check names exactly the routes tools call.
 */
import { BridgeError } from "../shared/errors.ts";
import type { Route } from "./routes.ts";

interface Check {
  tool: string;
  how: string;
}

const LEASE_SETTLE: Check = {
  tool: "portreeve_port_inspect",
  how: "on the leased port, to see whether the lease became a run or was given back",
};

const ACTIVATION_SETTLE: Check = {
  tool: "portreeve_activation_get",
  how: "with this activationId, to see each endpoint's state",
};

/** Executes are replayed by receipt, so repeating one is the other safe check. */
const execute = (tool: string, scope: string): Check => ({
  tool,
  how: `${scope ? `${scope} ` : ""}to see the current state, or repeat this execute with ` +
    "the same receipt: the daemon replays a receipt it already executed",
});

/** A preview changes nothing but its receipt: asking again is the check. */
const PREVIEW: Check = {
  tool: "the same preview",
  how: "again: a preview changes nothing but its receipt",
};

const CHECKS: Readonly<Record<string, Check>> = {
  "/v1/leases/acquire": {
    tool: "portreeve_ports_list",
    how: "with this claim's project and component, to see whether a lease is pending",
  },
  "/v1/leases/{leaseId}/confirm": LEASE_SETTLE,
  "/v1/leases/{leaseId}/abandon": LEASE_SETTLE,
  "/v1/runs/{runId}/release": {
    tool: "portreeve_ports_list",
    how: "to see whether the run is still listed (releasing again is safe)",
  },
  "/v1/stacks/{stackId}/prepare": {
    tool: "portreeve_generations_list",
    how: "for this stack, to see whether a generation was prepared",
  },
  "/v1/stack-activations/begin": {
    tool: "portreeve_activations_list",
    how: "for this stack, to see whether an activation began",
  },
  "/v1/stack-activations/{activationId}/confirm": ACTIVATION_SETTLE,
  "/v1/stack-activations/{activationId}/skip": ACTIVATION_SETTLE,
  "/v1/stack-activations/{activationId}/abandon": ACTIVATION_SETTLE,
  "/v1/stack-activations/{activationId}/reconcile": ACTIVATION_SETTLE,
  "/v1/stack-activations/{activationId}/end": ACTIVATION_SETTLE,
  "/v1/launcher-operations/begin": {
    tool: "portreeve_launcher_operations_list",
    how: "for this stack, to see whether the operation began",
  },
  "/v1/launcher-operations/{operationId}/renew": {
    tool: "portreeve_launcher_operation_get",
    how: "with this operationId, to see its deadline (a heartbeat is safe to repeat while active)",
  },
  "/v1/launcher-operations/{operationId}/complete": {
    tool: "portreeve_launcher_operation_get",
    how: "with this operationId, to see whether it is terminal",
  },
  "/v1/actions/ports/{port}/reclaim/execute": execute("portreeve_port_inspect", "on this port"),
  "/v1/actions/claims/{claimId}/reassign/execute": execute(
    "portreeve_claim_get",
    "with this claimId",
  ),
  "/v1/actions/claims/{claimId}/delete/execute": execute(
    "portreeve_claim_get",
    "with this claimId",
  ),
  "/v1/actions/claims/prune/execute": execute("portreeve_claims_list", ""),
  "/v1/actions/stacks/apply/execute": execute(
    "portreeve_stack_document_get",
    "with this stackRoot",
  ),
  "/v1/actions/stacks/prune/execute": execute("portreeve_stacks_list", ""),
  "/v1/actions/settings/execute": execute("portreeve_settings_get", ""),
};

/** The check for a route, if it changes state. */
export function outcomeCheck(route: Route): Check | undefined {
  return CHECKS[route.path] ?? (route.path.endsWith("/preview") ? PREVIEW : undefined);
}

/**
 * Names the read that settles an unknown outcome in `error`'s details (the next step,
 * error_codes.ts, tells the agent to call it first); other errors pass unchanged.
 */
export function withOutcomeCheck(error: unknown, route: Route): unknown {
  if (!(error instanceof BridgeError) || error.details.outcome !== "unknown") return error;
  const check = outcomeCheck(route);
  if (!check) return error;
  return new BridgeError(error.code, error.message, error.retryable, {
    ...error.details,
    checkWith: check.tool,
    checkHow: check.how,
  });
}
