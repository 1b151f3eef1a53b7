/** Consequential changes behind evidence-bound preview and execute (issue 5). */
import type { AnyTool } from "./consequential/receipts.ts";
import { CLAIM_RECEIPT_TOOLS } from "./consequential/claims.ts";
import { STACK_RECEIPT_TOOLS } from "./consequential/stacks.ts";

export const CONSEQUENTIAL_TOOLS: readonly AnyTool[] = [
  ...CLAIM_RECEIPT_TOOLS,
  ...STACK_RECEIPT_TOOLS,
];
