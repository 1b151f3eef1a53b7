/** Receipt tools on stacks (apply, prune) against a scripted daemon. */
import { recorded } from "../../../../support/recorded.ts";
import { pinPrunePair, pinReceiptPair } from "./receipt_pairs.ts";

const apply = recorded(56);
const applied = recorded(58);
pinReceiptPair({
  preview: {
    tool: "portreeve_stack_apply_preview",
    args: apply.sent.payload,
    reply: apply.reply,
    sent: apply.sent,
    summary: /portreeve\.stack\.json/,
  },
  execute: {
    tool: "portreeve_stack_apply_execute",
    args: (receiptId) => ({ receiptId, stackRoot: "/home/dev/work/demo-stack" }),
    reply: applied.reply,
    sent: () => applied.sent,
    result: /"path":"\/home\/dev\/work\/demo-stack\/portreeve\.stack\.json"/,
  },
});

pinPrunePair({
  preview: "portreeve_stacks_prune_preview",
  execute: "portreeve_stacks_prune_execute",
  noun: "stack",
  deletedIds: "deletedStackIds",
  recorded: recorded(144),
  candidate: { stack: applied.data.result.stack, claimIds: [], reason: "stack-root-missing" },
  summary: /^Delete 1 stack\(s\) whose root is gone, with 0 claim\(s\): anchor-stack at /,
});
