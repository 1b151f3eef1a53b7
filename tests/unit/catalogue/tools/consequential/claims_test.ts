/** Receipt tools on ports and claims (reclaim, reassign, delete, prune) against a scripted daemon. */
import { ok } from "../../../../support/scripted_daemon.ts";
import { recorded } from "../../../../support/recorded.ts";
import { executed, pinPrunePair, pinReceiptPair, receiptPost as post } from "./receipt_pairs.ts";

const CLAIM = "142379f1-1b34-4e87-bc2a-fcaf87b4d70e";

const reclaim = recorded(30);
pinReceiptPair({
  preview: {
    tool: "portreeve_port_reclaim_preview",
    args: { port: 18080, policy: "graceful" },
    reply: reclaim.reply,
    sent: reclaim.sent,
    summary: /^Reclaim port 18080 with graceful: would terminate pid 14390 \(node\)/,
  },
  execute: {
    tool: "portreeve_port_reclaim_execute",
    args: (receiptId) => ({ receiptId, port: 18080 }),
    reply: executed({ outcome: "terminated", reason: null }),
    sent: (receiptId) => post("/v1/actions/ports/18080/reclaim/execute", { receiptId }),
    result: /"outcome":"terminated"/,
  },
});

const deletion = recorded(38);
const deleted = recorded(40);
pinReceiptPair({
  preview: {
    tool: "portreeve_claim_delete_preview",
    args: { claimId: CLAIM },
    reply: deletion.reply,
    sent: deletion.sent,
    summary: /^Delete claim /,
  },
  execute: {
    tool: "portreeve_claim_delete_execute",
    args: (receiptId) => ({ receiptId, claimId: CLAIM }),
    reply: deleted.reply,
    sent: () => deleted.sent,
    result: /"deleted":true/,
  },
});

const claim = deletion.data.observed.claim;
pinReceiptPair({
  preview: {
    tool: "portreeve_claim_reassign_preview",
    args: { claimId: CLAIM, preferredPort: 18090 },
    reply: ok({
      receiptId: "5b0c7a4e-2222-4333-8444-555566667777",
      action: "claim.reassign",
      target: { type: "claim", id: CLAIM },
      proposal: { preferredPort: 18090 },
      observed: { claim, port: 18090 },
      expiresAt: deletion.data.expiresAt,
    }),
    sent: post(`/v1/actions/claims/${CLAIM}/reassign/preview`, { preferredPort: 18090 }),
    summary: /to port 18090/,
  },
  execute: {
    tool: "portreeve_claim_reassign_execute",
    args: (receiptId) => ({ receiptId, claimId: CLAIM }),
    reply: executed({ assignedPort: 18090 }),
    sent: (receiptId) => post(`/v1/actions/claims/${CLAIM}/reassign/execute`, { receiptId }),
    result: /^\{"assignedPort":18090\}$/,
  },
});

pinPrunePair({
  preview: "portreeve_claims_prune_preview",
  execute: "portreeve_claims_prune_execute",
  noun: "claim",
  deletedIds: "deletedClaimIds",
  recorded: recorded(142),
  candidate: { claim, reason: "workspace-missing" },
  summary: /^Delete 1 claim\(s\) whose workspace is gone: anchor-demo api\.http in /,
});
