/**
 * Consequential changes behind evidence-bound preview and execute: nothing changes until a
 * person has seen the preview's evidence and approved the receipt it names.
 */
import type { AnyTool } from "./consequential/receipts.ts";
import { CLAIM_RECEIPT_TOOLS } from "./consequential/claims.ts";
import { STACK_RECEIPT_TOOLS } from "./consequential/stacks.ts";

export const CONSEQUENTIAL_TOOLS: readonly AnyTool[] = [
  ...CLAIM_RECEIPT_TOOLS,
  ...STACK_RECEIPT_TOOLS,
];
