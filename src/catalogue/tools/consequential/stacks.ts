/**
 * Receipt pairs for stack documents and stack pruning. The bridge never reads
 * or writes a file: the daemon reads and writes only `<stack root>/portreeve.stack.json`.
 */
import { INPUT_BOUNDS } from "../../../shared/input_bounds.ts";
import { z } from "zod";
import {
  absolutePath,
  declared,
  documentIssue,
  olderThanMilliseconds,
  revision,
  stack,
  stackDefinitionInput,
  stackDefinitionOut,
  uuid,
} from "../../shapes.ts";
import {
  evidenceReply,
  executeTool,
  type Explained,
  previewTool,
  pruneExecuteTool,
} from "./receipts.ts";
import { executeCheck } from "../../outcome_checks.ts";
import { consequential } from "../../routes.ts";
import { brief, type Fragment, list, say } from "../../question.ts";

// The daemon binds a stack receipt to the stackRoot string exactly as sent.
const stackRootTarget = ({ stackRoot }: { stackRoot: string }) => ({
  type: "stack-root",
  id: stackRoot,
});
const stacksTarget = () => ({ type: "stack-collection", id: "global" });

const applyObserved = z.looseObject({
  document: z.looseObject({
    path: z.string(),
    kind: z.string(),
    fingerprint: z.string().nullable().optional(),
    issues: z.array(z.unknown()),
  }),
  stack: z.looseObject({
    changed: z.boolean(),
    existing: z.looseObject({ id: uuid() }).nullable(),
    revision: z.string(),
  }),
});

function explainApply(
  { observed }: z.output<ReturnType<typeof evidenceReply<typeof applyObserved>>>,
): Explained {
  const { document, stack } = observed;
  const rev = stack.revision.slice(0, 12);
  const write = document.kind === "missing"
    ? say`Create ${document.path}`
    : document.fingerprint
    ? say`Replace ${document.path} (fingerprint ${document.fingerprint.slice(0, 12)})`
    : say`Replace ${document.path}`;
  const registry = !stack.existing
    ? say`register a new stack at revision ${rev}`
    : stack.changed
    ? say`update stack ${stack.existing.id} to revision ${rev}`
    : say`leave stack ${stack.existing.id} unchanged`;
  const invalid = document.kind === "regular" && document.issues.length > 0;
  const refused = document.kind === "non-regular" || document.kind === "oversized";
  return {
    effect: invalid
      ? say`${write} (the current file is invalid) and ${registry}.`
      : say`${write} and ${registry}.`,
    blockers: refused
      ? [say`${document.path} is ${document.kind}; the daemon will not replace it`]
      : [],
    nothing: refused ? "preview_refused" : undefined,
  };
}

export const stackApplyPreview = previewTool({
  name: "portreeve_stack_apply_preview",
  execute: "portreeve_stack_apply_execute",
  title: "Preview stack apply",
  description: "Check a definition against <stackRoot>/portreeve.stack.json.",
  input: z.strictObject({
    stackRoot: absolutePath(true, INPUT_BOUNDS.stackRootReceipt.max),
    definition: stackDefinitionInput,
  }),
  path: "/v1/actions/stacks/apply/preview",
  body: ({ stackRoot, definition }) => ({ stackRoot, definition }),
  reply: evidenceReply(applyObserved),
  shown: {
    proposal: z.object({ definition: stackDefinitionOut, revision: revision() }),
    observed: z.object({
      document: z.object({
        path: z.string(),
        kind: z.string(),
        fingerprint: z.string().nullable(),
        revision: revision().nullable(),
        issues: z.array(documentIssue),
      }),
      stack: z.object({
        changed: z.boolean(),
        existing: stack.nullable(),
        revision: revision(),
        definition: stackDefinitionOut,
      }),
    }),
  },
  explain: explainApply,
  target: stackRootTarget,
  // What the stack would become is, unless the daemon normalised it further, what was proposed.
  view: {
    same: [
      { path: "observed.stack.definition", as: "proposal.definition" },
      { path: "observed.stack.revision", as: "proposal.revision" },
    ],
  },
});

/** The file is saved; then either applied (changed, stack) or not (error). */
const applyResult = z.object({
  saved: z.boolean().optional(),
  applied: z.boolean(),
  path: z.string(),
  fingerprint: z.string(),
  revision: revision().optional(),
  changed: z.boolean().optional(),
  stack: declared(stack.optional()),
  error: declared(z.object({ code: z.string(), message: z.string() }).optional()),
});

export const stackApplyExecute = executeTool({
  name: "portreeve_stack_apply_execute",
  action: "stack.apply",
  title: "Apply a stack",
  description: "Write and apply the stack.",
  input: z.strictObject({
    receiptId: uuid(),
    stackRoot: absolutePath(true, INPUT_BOUNDS.stackRootReceipt.max),
  }),
  result: applyResult,
  path: "/v1/actions/stacks/apply/execute",
  effect: consequential(
    ["writes a file"],
    "writes or replaces <stackRoot>/portreeve.stack.json and applies it to the registry",
  ),
  check: executeCheck("portreeve_stack_document_get", "with this stackRoot"),
  // The daemon binds the receipt to the raw string, so it is sent exactly as given.
  body: ({ receiptId, stackRoot }) => ({ receiptId, stackRoot }),
  target: stackRootTarget,
});

const stackSummary = z.looseObject({ id: z.string(), project: z.string(), stackRoot: z.string() });

/** `shop at /home/me/shop (stack 5f2c…)`: every part a person tells stacks apart by. */
function stackLabel(stack: z.output<typeof stackSummary>): Fragment {
  return say`${stack.project} at ${stack.stackRoot} (stack ${stack.id})`;
}

/** A stacks prune: candidates with their claims, blocked stacks, what was deleted or skipped. */
const stacksPruned = z.object({
  dryRun: z.boolean().optional(),
  candidates: declared(
    z.array(z.object({ stack, claimIds: z.array(uuid()), reason: z.string() })),
  ),
  blocked: declared(z.array(z.object({ stack, reasons: z.array(z.string()) }))),
  deletedStackIds: z.array(uuid()),
  deletedClaimIds: declared(z.array(uuid())),
  skipped: z.array(declared(z.object({ stackId: uuid(), reason: z.string() }))),
});

export const stacksPrunePreview = previewTool({
  name: "portreeve_stacks_prune_preview",
  execute: "portreeve_stacks_prune_execute",
  title: "Preview stacks prune",
  description: "Stacks whose root is gone.",
  input: z.strictObject({ olderThanMilliseconds: olderThanMilliseconds() }),
  path: "/v1/actions/stacks/prune/preview",
  body: ({ olderThanMilliseconds }) => ({ olderThanMilliseconds }),
  reply: evidenceReply(z.looseObject({
    candidates: z.array(z.looseObject({ stack: stackSummary, claimIds: z.array(z.unknown()) })),
    blocked: z.array(z.looseObject({ stack: stackSummary, reasons: z.array(z.string()) })),
  })),
  shown: { proposal: z.object({ olderThanMilliseconds: z.int() }), observed: stacksPruned },
  explain: ({ observed }) => {
    const { candidates, blocked } = observed;
    const claims = candidates.reduce((n, c) => n + c.claimIds.length, 0);
    return {
      // Blocked stacks are not deleted: with no candidate, executing deletes nothing.
      nothing: candidates.length === 0 ? "nothing_to_do" : undefined,
      effect: candidates.length === 0
        ? say`No stack to prune.`
        : say`Delete ${candidates.length} stack(s) whose root is gone, with ${claims} claim(s): ${
          list(candidates.map((c) => stackLabel(c.stack)), "; ")
        }.`,
      blockers: blocked.map((b) => say`${stackLabel(b.stack)}: ${list(b.reasons.map(brief))}`),
    };
  },
  target: stacksTarget,
});

export const stacksPruneExecute = pruneExecuteTool({
  name: "portreeve_stacks_prune_execute",
  action: "stacks.prune",
  title: "Prune stacks",
  description: "Delete the stacks.",
  result: stacksPruned,
  effect: consequential(
    ["deletes records"],
    "deletes the stacks the receipt names with their generations, activations and claims",
  ),
  path: "/v1/actions/stacks/prune/execute",
  check: executeCheck("portreeve_stacks_list", ""),
  target: stacksTarget,
});
