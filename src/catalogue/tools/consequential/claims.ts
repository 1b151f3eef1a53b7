/** Receipt pairs for ports and claims: reclaim a port, reassign / delete a claim, prune claims. */
import { z } from "zod";
import { declared, olderThanMilliseconds, port, timestamp, uuid } from "../../shapes.ts";
import { claim, inventoryEntry, listener } from "../../records.ts";
import {
  evidenceReply,
  executeTool,
  type Explained,
  previewTool,
  pruneExecuteTool,
} from "./receipts.ts";
import { executeCheck } from "../../outcome_checks.ts";
import { consequential } from "../../routes.ts";
import { counted, field, processSection, type Section, words } from "../../question.ts";
import { type Fragment, list, say } from "../../summary.ts";

/** A claim as previews show it: what a person recognises it by. */
const claimRef = z.looseObject({
  id: uuid(),
  identity: z.looseObject({
    project: z.string(),
    workspaceRoot: z.string(),
    component: z.string(),
    endpoint: z.string(),
  }),
  assignedPort: port().nullable().optional(),
});
type ClaimRef = z.output<typeof claimRef>;

const POLICIES = ["never", "graceful", "force-after-grace"] as const;
const portTarget = ({ port }: { port: number }) => ({ type: "port", id: String(port) });
const claimTarget = ({ claimId }: { claimId: string }) => ({
  type: "claim",
  id: claimId.toLowerCase(),
});
const claimsTarget = () => ({ type: "claim-collection", id: "global" });

/** `web api.http in /home/me/web (claim 0b7e…, port 5173)`: a claim as the agent reads it. */
export function claimLabel(claim: ClaimRef): Fragment {
  const { project, workspaceRoot, component, endpoint } = claim.identity;
  const name = `${component}.${endpoint}`;
  return claim.assignedPort
    ? say`${project} ${name} in ${workspaceRoot} (claim ${claim.id}, port ${claim.assignedPort})`
    : say`${project} ${name} in ${workspaceRoot} (claim ${claim.id})`;
}

/**
 * A claim as the person reads it: its id and every part of its identity, each on a line of
 * its own, so two claims never read the same. `index` of `of`: its place in a list.
 */
export function claimSection(claim: ClaimRef, index = 1, of = 1): Section {
  const { project, workspaceRoot, component, endpoint } = claim.identity;
  const port = claim.assignedPort;
  const heading = of === 1
    ? port ? words`The claim, on port ${port}` : words`The claim, with no port`
    : port
    ? words`Claim ${index} of ${of}, on port ${port}`
    : words`Claim ${index} of ${of}, with no port`;
  return {
    name: of === 1 ? { one: "the claim" } : { one: "claim", many: "claims", index },
    heading,
    lines: [
      field(words`id`, claim.id),
      field(words`project`, project),
      field(words`component`, component),
      field(words`endpoint`, endpoint),
      field(words`workspace`, workspaceRoot),
    ],
  };
}

/** The daemon's policy, as it said it: a value of its own. */
const policySection = (policy: string): Section => ({
  name: { one: "the policy" },
  lines: [field(words`Policy`, policy)],
});

const reclaimObserved = z.looseObject({
  port: port(),
  policy: z.string(),
  outcome: z.string(),
  reason: z.string().nullable().optional(),
  launcherAction: z.looseObject({ containerIds: z.array(z.string()).optional() }).nullable()
    .optional(),
  targets: z.array(z.looseObject({ pid: z.int(), command: z.string().nullable().optional() })),
  inventory: z.looseObject({ run: z.looseObject({ id: z.string() }).nullable().optional() })
    .nullable().optional(),
});

function explainReclaim(
  preview: z.output<ReturnType<typeof evidenceReply<typeof reclaimObserved>>>,
): Explained {
  const o = preview.observed;
  const head = say`Reclaim port ${o.port} with ${o.policy}:`;
  const pids = [...new Map(o.targets.map((t) => [t.pid, t.command ?? null])).entries()];
  const policy = policySection(o.policy);
  const never = { lead: [], sections: [] };
  switch (o.outcome) {
    case "would-terminate":
      return {
        effect: say`${head} would terminate ${
          list(pids.map(([p, c]) => say`pid ${p} (${c ?? "unknown"})`))
        }.`,
        blockers: [],
        asked: {
          lead: [
            words`The agent asks to reclaim port ${o.port}; the daemon would terminate ${
              counted(pids.length, words`process`, words`processes`)
            }, listed below.`,
          ],
          sections: [
            policy,
            ...pids.map(([p, c], i) => processSection(p, c, i + 1, pids.length)),
          ],
        },
      };
    case "already-free": {
      const run = o.inventory?.run;
      if (run) {
        return {
          effect:
            say`${head} nothing listens; executing only releases its confirmed run ${run.id}.`,
          blockers: [],
          asked: {
            lead: [
              words`The agent asks to reclaim port ${o.port}; nothing listens there, so executing only releases its confirmed run.`,
            ],
            sections: [policy, { name: { one: "the run" }, lines: [field(words`Run id`, run.id)] }],
          },
        };
      }
      if (o.inventory === undefined) {
        return {
          effect: say`${head} nothing listens; executing only releases its confirmed run, if any.`,
          blockers: [],
          asked: {
            lead: [
              words`The agent asks to reclaim port ${o.port}; nothing listens there, so executing only releases its confirmed run, if any.`,
            ],
            sections: [policy],
          },
        };
      }
      return {
        effect: say`${head} nothing listens and no run holds it; executing changes nothing.`,
        blockers: [],
        asked: never,
        nothing: "nothing_to_do",
      };
    }
    case "launcher-action-required":
      return {
        effect: say`${head} the listener is Docker-published and will not be signalled.`,
        blockers: [
          say`stop container(s) ${list(o.launcherAction?.containerIds ?? [])} via the launcher`,
        ],
        asked: never,
        nothing: "preview_refused",
      };
    default:
      return {
        effect: say`${head} ${o.outcome}; nothing would be signalled.`,
        blockers: [say`${o.reason ?? o.outcome}`],
        asked: never,
        nothing: "preview_refused",
      };
  }
}

const launcherAction = z.object({
  kind: z.string(),
  action: z.string(),
  containerIds: z.array(z.string()),
}).nullable();

/** The daemon's ReclamationResult: what a reclaim did (or, as a dry run, would do). */
const reclamation = z.object({
  operationId: uuid().optional(),
  operation: z.string().optional(),
  port: port().optional(),
  policy: z.string().optional(),
  dryRun: z.boolean().optional(),
  outcome: z.string(),
  reason: z.string().nullable(),
  launcherAction: declared(launcherAction),
  targets: declared(z.array(listener)),
  signals: declared(z.array(z.object({ pid: z.int(), signal: z.string(), at: timestamp() }))),
});

/** A claims prune: the candidates (with why), the ids deleted and the ones skipped. */
const claimsPruned = z.object({
  dryRun: z.boolean().optional(),
  candidates: declared(z.array(z.object({ claim, reason: z.string() }))),
  deletedClaimIds: z.array(uuid()),
  skipped: z.array(declared(z.object({ claimId: uuid(), reason: z.string() }))),
});

export const portReclaimPreview = previewTool({
  name: "portreeve_port_reclaim_preview",
  execute: "portreeve_port_reclaim_execute",
  title: "Preview port reclaim",
  description: "PortReeve-owned processes a reclaim would signal.",
  input: z.strictObject({ port: port(), policy: z.enum(POLICIES) }),
  path: "/v1/actions/ports/{port}/reclaim/preview",
  body: ({ policy }) => ({ policy }),
  reply: evidenceReply(reclaimObserved),
  shown: {
    proposal: z.object({ policy: z.string() }),
    observed: z.object({
      port: port(),
      policy: z.string(),
      outcome: z.string(),
      reason: z.string().nullable(),
      launcherAction,
      targets: z.array(listener),
      inventory: inventoryEntry,
    }),
  },
  explain: explainReclaim,
  target: portTarget,
});

export const portReclaimExecute = executeTool({
  name: "portreeve_port_reclaim_execute",
  action: "port.reclaim",
  title: "Reclaim a port",
  description: "Signal the previewed processes.",
  input: z.strictObject({ receiptId: uuid(), port: port() }),
  result: reclamation,
  path: "/v1/actions/ports/{port}/reclaim/execute",
  effect: consequential(
    ["signals a process"],
    "signals the processes the receipt names, then releases their run",
  ),
  check: executeCheck("portreeve_port_inspect", "on this port"),
  target: portTarget,
});

export const claimReassignPreview = previewTool({
  name: "portreeve_claim_reassign_preview",
  execute: "portreeve_claim_reassign_execute",
  title: "Preview claim reassignment",
  description: "Plan moving an idle claim: preferredPort or exactPort.",
  input: z.strictObject({
    claimId: uuid(),
    preferredPort: port().optional(),
    exactPort: port().optional(),
  })
    .refine((i) => i.preferredPort === undefined || i.exactPort === undefined, {
      message: "preferredPort and exactPort are mutually exclusive; give at most one",
    }),
  path: "/v1/actions/claims/{claimId}/reassign/preview",
  body: ({ preferredPort, exactPort }) => ({ preferredPort, exactPort }),
  reply: evidenceReply(z.looseObject({ claim: claimRef, port: port() })),
  shown: {
    proposal: z.object({ preferredPort: port().optional(), exactPort: port().optional() }),
    observed: z.object({
      claim,
      port: port(),
      preferredPort: port().nullable(),
      exactPort: port().nullable(),
      inventory: inventoryEntry.nullable(),
    }),
  },
  explain: ({ observed }) =>
    observed.claim.assignedPort === observed.port
      ? {
        effect: say`Claim ${claimLabel(observed.claim)} is on port ${observed.port} already.`,
        blockers: [],
        asked: { lead: [], sections: [] },
        nothing: "nothing_to_do",
      }
      : {
        effect: say`Move claim ${claimLabel(observed.claim)} to port ${observed.port}.`,
        blockers: [],
        asked: {
          lead: [words`The agent asks to move this claim to port ${observed.port}.`],
          sections: [claimSection(observed.claim)],
        },
      },
  target: claimTarget,
});

const claimExecuteInput = z.strictObject({ receiptId: uuid(), claimId: uuid() });

export const claimReassignExecute = executeTool({
  name: "portreeve_claim_reassign_execute",
  action: "claim.reassign",
  title: "Reassign a claim",
  description: "Move the claim.",
  input: claimExecuteInput,
  result: claim.partial().required({ assignedPort: true }),
  path: "/v1/actions/claims/{claimId}/reassign/execute",
  effect: consequential(["moves a claim"], "moves an idle claim to another port"),
  check: executeCheck("portreeve_claim_get", "with this claimId"),
  target: claimTarget,
});

export const claimDeletePreview = previewTool({
  name: "portreeve_claim_delete_preview",
  execute: "portreeve_claim_delete_execute",
  title: "Preview claim deletion",
  description: "Check an idle claim is deletable.",
  input: z.strictObject({ claimId: uuid() }),
  path: "/v1/actions/claims/{claimId}/delete/preview",
  reply: evidenceReply(z.looseObject({ claim: claimRef })),
  shown: {
    proposal: z.object({}),
    observed: z.object({ claim, inventory: inventoryEntry.nullable() }),
  },
  explain: ({ observed }) => ({
    effect: say`Delete claim ${claimLabel(observed.claim)}; its port becomes free for others.`,
    blockers: [],
    asked: {
      lead: [words`The agent asks to delete this claim; its port becomes free for others.`],
      sections: [claimSection(observed.claim)],
    },
  }),
  target: claimTarget,
});

export const claimDeleteExecute = executeTool({
  name: "portreeve_claim_delete_execute",
  action: "claim.delete",
  title: "Delete a claim",
  description: "Delete the claim.",
  input: claimExecuteInput,
  result: z.object({ deleted: z.boolean(), claimId: uuid().optional() }),
  path: "/v1/actions/claims/{claimId}/delete/execute",
  effect: consequential(["deletes records"], "deletes an idle claim"),
  check: executeCheck("portreeve_claim_get", "with this claimId"),
  target: claimTarget,
});

export const claimsPrunePreview = previewTool({
  name: "portreeve_claims_prune_preview",
  execute: "portreeve_claims_prune_execute",
  title: "Preview claims prune",
  description: "Idle claims whose workspace is gone.",
  input: z.strictObject({ olderThanMilliseconds: olderThanMilliseconds() }),
  path: "/v1/actions/claims/prune/preview",
  body: ({ olderThanMilliseconds }) => ({ olderThanMilliseconds }),
  reply: evidenceReply(z.looseObject({
    candidates: z.array(z.looseObject({ claim: claimRef })),
    skipped: z.array(z.looseObject({ claimId: z.string(), reason: z.string() })),
  })),
  shown: { proposal: z.object({ olderThanMilliseconds: z.int() }), observed: claimsPruned },
  explain: ({ observed }) => {
    const { candidates, skipped } = observed;
    const n = candidates.length;
    const claims = counted(n, words`claim`, words`claims`);
    return {
      nothing: n === 0 ? "nothing_to_do" : undefined,
      effect: n === 0
        ? say`No claim to prune.`
        : say`Delete ${n} claim(s) whose workspace is gone: ${
          list(candidates.map((c) => claimLabel(c.claim)), "; ")
        }.`,
      blockers: skipped.map((s) => say`claim ${s.claimId}: ${s.reason}`),
      asked: {
        lead: [
          n === 1
            ? words`The agent asks to delete ${claims} whose workspace is gone; its port becomes free for others.`
            : words`The agent asks to delete ${claims} whose workspace is gone; their ports become free for others.`,
          ...(skipped.length === 0 ? [] : [
            words`The daemon would skip ${
              counted(skipped.length, words`other claim`, words`other claims`)
            }, listed after them.`,
          ]),
        ],
        sections: [
          ...candidates.map((c, i) => claimSection(c.claim, i + 1, n)),
          ...skipped.map((s, i): Section => ({
            name: { one: "skipped claim", many: "skipped claims", index: i + 1 },
            heading: words`Skipped claim ${i + 1} of ${skipped.length}`,
            lines: [field(words`id`, s.claimId), field(words`reason`, s.reason)],
          })),
        ],
      },
    };
  },
  target: claimsTarget,
});

export const claimsPruneExecute = pruneExecuteTool({
  name: "portreeve_claims_prune_execute",
  action: "claims.prune",
  title: "Prune claims",
  description: "Delete the claims.",
  result: claimsPruned,
  effect: consequential(["deletes records"], "deletes the idle claims the receipt names"),
  path: "/v1/actions/claims/prune/execute",
  check: executeCheck("portreeve_claims_list", ""),
  target: claimsTarget,
});
