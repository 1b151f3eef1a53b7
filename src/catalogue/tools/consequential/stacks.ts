/**
 * Receipt pairs for stack documents, stack pruning and global settings. The bridge never reads
 * or writes a file: the daemon reads and writes only `<stack root>/portreeve.stack.json`.
 */
import { INPUT_BOUNDS } from "../../../shared/input_bounds.ts";
import { z } from "zod";
import {
  absolutePath,
  declared,
  documentIssue,
  olderThanMilliseconds,
  port,
  revision,
  settings,
  stack,
  stackDefinitionInput,
  stackDefinitionOut,
  uuid,
} from "../../shapes.ts";
import {
  APPROVAL,
  evidenceReply,
  executeTool,
  previewReply,
  previewTool,
  pruneExecuteTool,
} from "./receipts.ts";
import { executeCheck } from "../../outcome_checks.ts";
import { consequential } from "../../routes.ts";
import { type Fragment, list, say } from "../../question.ts";

// The daemon binds a stack receipt to the stackRoot string exactly as sent.
const stackRootTarget = ({ stackRoot }: { stackRoot: string }) => ({
  type: "stack-root",
  id: stackRoot,
});
const stacksTarget = () => ({ type: "stack-collection", id: "global" });
const settingsTarget = () => ({ type: "settings", id: "global" });

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
): { effect: Fragment; blockers: Fragment[] } {
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
  const blockers = document.kind === "non-regular" || document.kind === "oversized"
    ? [say`${document.path} is ${document.kind}; the daemon will not replace it`]
    : [];
  return {
    effect: invalid
      ? say`${write} (the current file is invalid) and ${registry}.`
      : say`${write} and ${registry}.`,
    blockers,
  };
}

export const stackApplyPreview = previewTool({
  name: "portreeve_stack_apply_preview",
  execute: "portreeve_stack_apply_execute",
  title: "Preview stack apply",
  description:
    `Check a definition against <stackRoot>/portreeve.stack.json and the registry. ${APPROVAL}`,
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
  description: "Write portreeve.stack.json and apply it; send stackRoot exactly as previewed.",
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

const stackSummary = z.looseObject({ project: z.string(), stackRoot: z.string() });

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
  description: `Stacks whose root is gone, with blockers. ${APPROVAL}`,
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
      noop: candidates.length === 0 && blocked.length === 0,
      effect: candidates.length === 0
        ? say`No stack to prune.`
        : say`Delete ${candidates.length} stack(s) whose root is gone, with ${claims} claim(s): ${
          list(candidates.map((c) => say`${c.stack.project} at ${c.stack.stackRoot}`))
        }.`,
      blockers: blocked.map((b) =>
        say`${b.stack.project} at ${b.stack.stackRoot}: ${list(b.reasons)}`
      ),
    };
  },
  target: stacksTarget,
});

export const stacksPruneExecute = pruneExecuteTool({
  name: "portreeve_stacks_prune_execute",
  action: "stacks.prune",
  title: "Prune stacks",
  description: "Delete the approved stacks, re-checking each; signals nothing.",
  result: stacksPruned,
  effect: consequential(
    ["deletes records"],
    "deletes the stacks the receipt names with their generations, activations and claims",
  ),
  path: "/v1/actions/stacks/prune/execute",
  check: executeCheck("portreeve_stacks_list", ""),
  target: stacksTarget,
});

/** The public runtime settings an update may name; the lists carry the protocol's sizes. */
const SETTING_FIELDS = {
  automaticPortRanges: z.array(z.strictObject({ start: port(), end: port() }))
    .max(INPUT_BOUNDS.automaticPortRanges.max).optional(),
  excludedPorts: z.array(port()).max(INPUT_BOUNDS.excludedPorts.max).optional(),
  leaseTtlMilliseconds: z.int().optional(),
  ephemeralAssignmentTtlMilliseconds: z.int().optional(),
  gracefulShutdownMilliseconds: z.int().optional(),
  historyMaximumEvents: z.int().optional(),
  diagnosticLogMaximumBytes: z.int().optional(),
  diagnosticLogFiles: z.int().optional(),
};
const SETTING_NAMES = Object.keys(SETTING_FIELDS).join(", ");
const settingName = z.enum(Object.keys(SETTING_FIELDS) as [keyof typeof SETTING_FIELDS]);
const changedSettings = z.partialRecord(settingName, z.unknown());

/**
 * Only those settings, closed; value ranges are the daemon's to enforce (it answers with the
 * reason), which keeps the advertised schema close to the anchor's.
 */
const settingsUpdates = z.strictObject(SETTING_FIELDS, {
  error: (issue) =>
    issue.code === "unrecognized_keys"
      ? `unsupported setting(s) ${issue.keys.join(", ")}; only ${SETTING_NAMES} can be changed`
      : undefined,
}).refine((u) => Object.keys(u).length > 0, {
  message: "name at least one setting to change",
  // An unsupported key already says what is wrong; "name one" on top would repeat it.
  when: (payload) => payload.issues.length === 0,
});

/** A setting value as a person reads it: ranges as `a–b`, long port lists counted. */
export function showSetting(value: unknown): string | number {
  if (typeof value === "number") return value;
  if (!Array.isArray(value)) return String(value);
  if (value.every((v) => typeof v === "object" && v !== null)) {
    return value.map((r: { start: number; end: number }) => `${r.start}–${r.end}`).join(", ") ||
      "none";
  }
  return value.length > 8 ? `${value.length} ports` : `[${value.join(", ")}]`;
}

export const settingsUpdatePreview = previewTool({
  name: "portreeve_settings_update_preview",
  execute: "portreeve_settings_update_execute",
  title: "Preview settings update",
  description: `Current and resulting settings. ${APPROVAL}`,
  input: z.strictObject({ updates: settingsUpdates }),
  path: "/v1/actions/settings/preview",
  body: ({ updates }) => ({ updates }),
  reply: previewReply(
    z.looseObject({ current: z.record(z.string(), z.unknown()) }),
    z.looseObject({ updates: z.record(z.string(), z.unknown()) }),
  ),
  shown: {
    // `updates` holds only the settings that change: a map of them (its keys declared), not a
    // record, so a setting changed to an empty list is written, never left out.
    proposal: z.object({ updates: changedSettings, proposed: settings }),
    observed: z.object({ current: settings }),
  },
  explain: ({ proposal, observed }) => {
    const current = observed.current;
    const updates = proposal.updates;
    const changes = Object.keys(updates).map((k) =>
      say`${k} ${showSetting(current[k])} → ${showSetting(updates[k])}`
    );
    return { effect: say`Change ${list(changes, "; ")}.`, blockers: [] };
  },
  target: settingsTarget,
});

export const settingsUpdateExecute = executeTool({
  name: "portreeve_settings_update_execute",
  action: "settings.update",
  title: "Update settings",
  description: "Apply the approved settings if the current ones are unchanged.",
  input: z.strictObject({ receiptId: uuid() }),
  result: z.object({ settings: declared(settings) }),
  path: "/v1/actions/settings/execute",
  effect: consequential(["changes settings"], "changes the daemon's global settings"),
  check: executeCheck("portreeve_settings_get", ""),
  target: settingsTarget,
});
