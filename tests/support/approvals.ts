/**
 * A bridge's approval pair as src/bridge/mod.ts builds it: one gate, its minter held by the
 * approvals. A daemon client (or the scripted one) built with `gate` accepts what `approvals`
 * mint, and nothing another pair mints.
 */
import { Approvals, obtainInputApproval } from "../../src/catalogue/approval.ts";
import { ReceiptBook } from "../../src/catalogue/receipt_book.ts";
import { ApprovalGate, type ApprovalProof, type GatedRequest } from "../../src/daemon/gate.ts";
import { BridgeError, Codes } from "../../src/shared/errors.ts";

export function approvalPair(): { gate: ApprovalGate; approvals: Approvals } {
  const gate = new ApprovalGate();
  return { gate, approvals: new Approvals(gate.takeMinter()) };
}

/** A proof from `approvals` for `request`, the approval module's own way (`--approval off`). */
export async function proofWithoutAsking(
  approvals: Approvals,
  request: GatedRequest,
): Promise<ApprovalProof> {
  const refuse = () => new BridgeError(Codes.internal, "unexpected", false);
  const proof = await obtainInputApproval({
    approvals,
    bridge: { approval: "off", approvalMs: 1_000 },
    receipts: new ReceiptBook(),
    host: { canAsk: false },
    signal: new AbortController().signal,
  }, {
    request,
    prepare: () => Promise.resolve(undefined),
    refusals: {
      hostCannotAsk: refuse,
      tooLongToAsk: refuse,
      declined: refuse,
      busy: refuse,
      cancelled: refuse,
      noAnswer: refuse,
    },
  });
  return proof!;
}
