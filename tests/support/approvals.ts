/**
 * A bridge's approval pair as src/bridge/mod.ts builds it: one gate, its minter held by the
 * approvals. A daemon client (or the scripted one) built with `gate` accepts what `approvals`
 * mint, and nothing another pair mints.
 */
import { Approvals } from "../../src/catalogue/approval.ts";
import { ApprovalGate } from "../../src/daemon/gate.ts";

export function approvalPair(): { gate: ApprovalGate; approvals: Approvals } {
  const gate = new ApprovalGate();
  return { gate, approvals: new Approvals(gate.takeMinter()) };
}
