/**
 * Which read shows whether a mutation took effect, for when its answer was lost (the daemon
 * received it, but the reply was garbage, cut off, oversize or late). The agent is told the
 * exact tool to call instead of guessing, or retrying into a conflict.
 */
import { BridgeError } from "../errors.ts";

interface Check {
  pattern: RegExp;
  tool: string;
  how: string;
}

const ID = "[^/]+";
const CHECKS: readonly Check[] = [
  {
    pattern: /^\/v1\/leases\/acquire$/,
    tool: "portreeve_ports_list",
    how: "with this claim's project and component, to see whether a lease is pending",
  },
  {
    pattern: new RegExp(`^/v1/leases/${ID}/(confirm|abandon)$`),
    tool: "portreeve_port_inspect",
    how: "on the leased port, to see whether the lease became a run or was given back",
  },
  {
    pattern: new RegExp(`^/v1/runs/${ID}/release$`),
    tool: "portreeve_ports_list",
    how: "to see whether the run is still listed (releasing again is safe)",
  },
  {
    pattern: new RegExp(`^/v1/stacks/${ID}/prepare$`),
    tool: "portreeve_generations_list",
    how: "for this stack, to see whether a generation was prepared",
  },
  {
    pattern: /^\/v1\/stack-activations\/begin$/,
    tool: "portreeve_activations_list",
    how: "for this stack, to see whether an activation began",
  },
  {
    pattern: new RegExp(`^/v1/stack-activations/${ID}/${ID}$`),
    tool: "portreeve_activation_get",
    how: "with this activationId, to see each endpoint's state",
  },
  {
    pattern: /^\/v1\/launcher-operations\/begin$/,
    tool: "portreeve_launcher_operations_list",
    how: "for this stack, to see whether the operation began",
  },
  {
    pattern: new RegExp(`^/v1/launcher-operations/${ID}/complete$`),
    tool: "portreeve_launcher_operation_get",
    how: "with this operationId, to see whether it is terminal",
  },
  {
    pattern: /^\/v1\/actions\/.+\/preview$/,
    tool: "the same preview",
    how: "again: a preview changes nothing but its receipt",
  },
  ...executeChecks([
    ["ports/[0-9]+/reclaim", "portreeve_port_inspect", "on this port"],
    [`claims/${ID}/(reassign|delete)`, "portreeve_claim_get", "with this claimId"],
    ["claims/prune", "portreeve_claims_list", ""],
    ["stacks/apply", "portreeve_stack_document_get", "with this stackRoot"],
    ["stacks/prune", "portreeve_stacks_list", ""],
    ["settings", "portreeve_settings_get", ""],
  ]),
];

/** Executes are replayed by receipt, so repeating one is the other safe check. */
function executeChecks(rows: [string, string, string][]): Check[] {
  return rows.map(([action, tool, scope]) => ({
    pattern: new RegExp(`^/v1/actions/${action}/execute$`),
    tool,
    how: `${scope ? `${scope} ` : ""}to see the current state, or repeat this execute with ` +
      "the same receipt: the daemon replays a receipt it already executed",
  }));
}

/** Adds the read that settles an unknown outcome to `error`; other errors pass unchanged. */
export function withOutcomeCheck(error: unknown, path: string): unknown {
  if (!(error instanceof BridgeError) || error.details.outcome !== "unknown") return error;
  const check = CHECKS.find((c) => c.pattern.test(path));
  if (!check) return error;
  return new BridgeError(
    error.code,
    `${error.message} To check, call ${check.tool} ${check.how}.`,
    error.retryable,
    check.tool.startsWith("portreeve_")
      ? { ...error.details, checkWith: check.tool }
      : error.details,
  );
}
