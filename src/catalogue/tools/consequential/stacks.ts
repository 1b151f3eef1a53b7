/**
 * Receipt pairs for stack documents and stack pruning. The bridge never reads
 * or writes a file: the daemon reads and writes only `<stack root>/portreeve.stack.json`.
 */
import { INPUT_BOUNDS } from "../../../shared/input_bounds.ts";
import { z } from "zod";
import {
  absolutePath,
  declared,
  olderThanMilliseconds,
  revision,
  stackDefinitionInput,
  uuid,
} from "../../shapes.ts";
import { documentIssue, stack, stackDefinitionOut } from "../../records.ts";
import {
  evidenceReply,
  executeTool,
  type Explained,
  previewTool,
  pruneExecuteTool,
} from "./receipts.ts";
import { executeCheck } from "../../outcome_checks.ts";
import { consequential } from "../../routes.ts";
import { counted, field, type Section, words } from "../../question.ts";
import { type Fragment, list, say } from "../../summary.ts";

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
  const fingerprint = document.kind !== "missing" && document.fingerprint
    ? [field(words`fingerprint of its current bytes`, document.fingerprint.slice(0, 12))]
    : [];
  return {
    effect: invalid
      ? say`${write} (the current file is invalid) and ${registry}.`
      : say`${write} and ${registry}.`,
    blockers: refused
      ? [say`${document.path} is ${document.kind}; the daemon will not replace it`]
      : [],
    asked: {
      lead: [
        document.kind === "missing"
          ? words`The agent asks to create the stack file named below.`
          : invalid
          ? words`The agent asks to replace the stack file named below (the current file is invalid).`
          : words`The agent asks to replace the stack file named below.`,
        !stack.existing
          ? words`The daemon would then register a new stack at the revision below.`
          : stack.changed
          ? words`The daemon would then update the stack below to the revision below.`
          : words`The daemon would then leave the stack below unchanged.`,
      ],
      sections: [
        {
          name: { one: "the file" },
          heading: words`The stack file`,
          lines: [field(words`path`, document.path), ...fingerprint],
        },
        {
          name: { one: "the stack" },
          heading: words`The stack`,
          lines: [
            ...(stack.existing ? [field(words`id`, stack.existing.id)] : []),
            ...(!stack.existing || stack.changed ? [field(words`new revision`, rev)] : []),
          ],
        },
      ],
    },
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

/** `shop at /home/me/shop (stack 5f2c…)`: a stack as the agent reads it. */
function stackLabel(stack: z.output<typeof stackSummary>): Fragment {
  return say`${stack.project} at ${stack.stackRoot} (stack ${stack.id})`;
}

/** A stack as the person reads it: every part they tell stacks apart by, a line each. */
function stackLines(stack: z.output<typeof stackSummary>) {
  return [
    field(words`id`, stack.id),
    field(words`project`, stack.project),
    field(words`root`, stack.stackRoot),
  ];
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
    const n = candidates.length;
    return {
      // Blocked stacks are not deleted: with no candidate, executing deletes nothing.
      nothing: n === 0 ? "nothing_to_do" : undefined,
      effect: n === 0
        ? say`No stack to prune.`
        : say`Delete ${n} stack(s) whose root is gone, with ${claims} claim(s): ${
          list(candidates.map((c) => stackLabel(c.stack)), "; ")
        }.`,
      blockers: blocked.map((b) => say`${stackLabel(b.stack)}: ${list(b.reasons)}`),
      asked: {
        lead: [
          words`The agent asks to delete ${
            counted(n, words`stack`, words`stacks`)
          } whose root is gone, with their ${counted(claims, words`claim`, words`claims`)}.`,
          ...(blocked.length === 0 ? [] : [
            words`The daemon would leave ${
              counted(blocked.length, words`blocked stack`, words`blocked stacks`)
            } as they are, listed after them.`,
          ]),
        ],
        sections: [
          ...candidates.map((c, i): Section => ({
            name: { one: "stack", many: "stacks", index: i + 1 },
            heading: words`Stack ${i + 1} of ${n}`,
            lines: stackLines(c.stack),
          })),
          ...blocked.map((b, i): Section => ({
            name: { one: "blocked stack", many: "blocked stacks", index: i + 1 },
            heading: words`Blocked stack ${i + 1} of ${blocked.length}`,
            lines: [
              ...stackLines(b.stack),
              ...b.reasons.map((reason, j) => field(words`reason ${j + 1}`, reason)),
            ],
          })),
        ],
      },
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
