// Evidence-bound preview/execute pairs. A preview stores {proposal, observed} and its hash;
// execute re-observes with the stored proposal and acts only if nothing drifted.
import { z } from "zod";
import type { Ctx } from "../core.ts";
import { canonicalStackRoot, readDocument, writeDocument } from "../document.ts";
import { fail, parseWith, ProtocolError } from "../errors.ts";
import { forecast, type Policy, reclaim } from "../reclamation.ts";
import { inventoryEntry } from "../inventory.ts";
import { post, type Route } from "../router.ts";
import { policySchema, settingsBodySchema, uuidSchema } from "../schemas.ts";
import { documentText, normalizeDefinition, type StackDefinition } from "../stackdef.ts";
import type { Receipt } from "../state.ts";
import { canonicalJson, clone, iso, sha256Hex, uuid } from "../util.ts";
import { claimView } from "../views.ts";
import {
  applyReassign,
  claimOr404,
  deleteClaim,
  observeClaimDelete,
  olderThanSchema,
  planReassign,
  pruneClaims,
  reassignSchema,
} from "./claims.ts";
import { applySettings, mergeSettings } from "./health.ts";
import { applyStack, planApply, pruneStacks } from "./stacks.ts";

const LIFETIME_MS = 5 * 60 * 1000;

type Json = Record<string, unknown>;

interface ActionSpec {
  action: string;
  targetType: string;
  target(ctx: Ctx): string;
  /** Validates the preview body into the stored proposal. */
  proposal(ctx: Ctx): Json | Promise<Json>;
  observe(ctx: Ctx, proposal: Json, target: string): Json | Promise<Json>;
  /** Performs the effect; `observed` is the fresh (matching) evidence. */
  execute(ctx: Ctx, proposal: Json, target: string, receipt: Receipt): unknown | Promise<unknown>;
  /** Optional hook run on fresh evidence before the hash check (document drift). */
  precheck?(receipt: Receipt, fresh: Json): void;
  /** Body schemas checked before negotiation (besides the idempotency key / receipt id). */
  previewBody?: z.ZodType[];
  executeBody?: z.ZodType[];
}

const keySchema = z.object({ idempotencyKey: z.string().min(1).max(256).optional() });
const executeSchema = z.object({ receiptId: uuidSchema });

const hashOf = (proposal: Json, observed: Json) => sha256Hex(canonicalJson({ proposal, observed }));

async function preview(ctx: Ctx, spec: ActionSpec): Promise<unknown> {
  const { idempotencyKey } = parseWith(keySchema, ctx.body);
  const targetId = spec.target(ctx);
  const proposal = await spec.proposal(ctx);
  const observed = await spec.observe(ctx, proposal, targetId);
  const evidenceHash = hashOf(proposal, observed);
  const key = idempotencyKey ?? uuid();
  const prior = [...ctx.state.receipts.values()].find((r) => r.idempotencyKey === key);
  if (prior) {
    if (
      prior.action === spec.action && prior.targetId === targetId &&
      prior.evidenceHash === evidenceHash
    ) {
      return previewView(prior);
    }
    // Upstream cannot serialize this error code and answers a bare 500 (as recorded from the real daemon).
    throw new ProtocolError(
      "internal",
      "The idempotency key was used for a different preview.",
      {},
      {
        status: 500,
      },
    );
  }
  const receipt: Receipt = {
    id: uuid(),
    action: spec.action,
    targetType: spec.targetType,
    targetId,
    proposal,
    observed,
    evidenceHash,
    idempotencyKey: key,
    expiresAt: iso(ctx.now + LIFETIME_MS),
    state: "pending",
    result: null,
  };
  ctx.state.receipts.set(receipt.id, receipt);
  return previewView(receipt);
}

function previewView(r: Receipt): unknown {
  return clone({
    receiptId: r.id,
    action: r.action,
    target: { type: r.targetType, id: r.targetId },
    proposal: r.proposal,
    observed: r.observed,
    expiresAt: r.expiresAt,
  });
}

async function execute(ctx: Ctx, spec: ActionSpec): Promise<unknown> {
  const { receiptId } = parseWith(executeSchema, ctx.body);
  const receipt = ctx.state.receipts.get(receiptId);
  if (!receipt) throw fail.receipt("not_found", `Receipt ${receiptId} was not found.`, receiptId);
  const targetId = spec.target(ctx);
  if (receipt.action !== spec.action || receipt.targetId !== targetId) {
    throw fail.receipt(
      "receipt_mismatch",
      "The receipt was issued for a different action or target.",
      receipt.id,
    );
  }
  if (receipt.state === "completed") {
    return { changed: false, replayed: true, result: clone(receipt.result) };
  }
  if (receipt.expiresAt <= ctx.lapseAt) {
    throw fail.receipt("receipt_expired", `Receipt ${receipt.id} expired at ${receipt.expiresAt}.`);
  }
  const fresh = await spec.observe(ctx, receipt.proposal, targetId);
  spec.precheck?.(receipt, fresh);
  if (hashOf(receipt.proposal, fresh) !== receipt.evidenceHash) {
    throw fail.receipt(
      "receipt_mismatch",
      "The evidence changed since the preview; preview again.",
      receipt.id,
    );
  }
  receipt.state = "executing";
  try {
    const result = await spec.execute(ctx, receipt.proposal, targetId, receipt);
    receipt.result = clone(result);
    receipt.state = "completed";
    return { changed: true, replayed: false, result: clone(result) };
  } catch (error) {
    receipt.state = "pending";
    throw error;
  }
}

const reclaimBody = z.object({ policy: policySchema });

const reclaimAction: ActionSpec = {
  action: "port.reclaim",
  targetType: "port",
  previewBody: [reclaimBody],
  target: (ctx) => ctx.params.port,
  proposal: (ctx) => ({ policy: parseWith(reclaimBody, ctx.body).policy }),
  observe: (ctx, p, target) => {
    const port = Number(target);
    const f = forecast(ctx, port, p.policy as Policy, "reclaim");
    return {
      port,
      policy: p.policy,
      outcome: f.outcome,
      reason: f.reason,
      launcherAction: null,
      targets: f.targets,
      inventory: inventoryEntry(ctx, port),
    };
  },
  execute: (ctx, p, target) => reclaim(ctx, Number(target), p.policy as Policy, false, "reclaim"),
};

const reassignAction: ActionSpec = {
  action: "claim.reassign",
  targetType: "claim",
  previewBody: [reassignSchema],
  target: (ctx) => ctx.params.claimId,
  proposal: (ctx) => {
    const p = parseWith(reassignSchema, ctx.body);
    return clone(p) as Json;
  },
  observe: (ctx, p, target) => {
    const claim = claimOr404(ctx, target);
    const port = planReassign(ctx, claim, p);
    return {
      claim: claimView(claim),
      port,
      preferredPort: p.preferredPort ?? null,
      exactPort: p.exactPort ?? null,
      inventory: inventoryEntry(ctx, port),
    };
  },
  execute: (ctx, p, target) => {
    const claim = claimOr404(ctx, target);
    applyReassign(ctx, claim, p, planReassign(ctx, claim, p));
    return claimView(claim);
  },
};

const deleteAction: ActionSpec = {
  action: "claim.delete",
  targetType: "claim",
  target: (ctx) => ctx.params.claimId,
  proposal: () => ({}),
  observe: (ctx, _p, target) => observeClaimDelete(ctx, claimOr404(ctx, target)),
  execute: (ctx, _p, target) => {
    deleteClaim(ctx, claimOr404(ctx, target));
    return { deleted: true, claimId: target };
  },
};

const olderThanBody = z.object({ olderThanMilliseconds: olderThanSchema });

const claimsPruneAction: ActionSpec = {
  action: "claims.prune",
  targetType: "claim-collection",
  previewBody: [olderThanBody],
  target: () => "global",
  proposal: (ctx) => parseWith(olderThanBody, ctx.body),
  observe: (ctx, p) => pruneClaims(ctx, p.olderThanMilliseconds as number, true),
  execute: (ctx, p) => pruneClaims(ctx, p.olderThanMilliseconds as number, false),
};

const stacksPruneAction: ActionSpec = {
  action: "stacks.prune",
  targetType: "stack-collection",
  previewBody: [olderThanBody],
  target: () => "global",
  proposal: (ctx) => parseWith(olderThanBody, ctx.body),
  observe: (ctx, p) => pruneStacks(ctx, p.olderThanMilliseconds as number, true),
  execute: (ctx, p) => pruneStacks(ctx, p.olderThanMilliseconds as number, false),
};

const settingsAction: ActionSpec = {
  action: "settings.update",
  targetType: "settings",
  previewBody: [settingsBodySchema],
  target: () => "global",
  proposal: (ctx) => {
    const { updates, merged } = mergeSettings(ctx.settings, ctx.body.updates);
    return { updates, proposed: merged };
  },
  observe: (ctx) => ({ current: clone(ctx.settings) }),
  execute: (ctx, p) => {
    const { updates, merged } = mergeSettings(ctx.settings, p.updates);
    applySettings(ctx, updates, merged);
    return { settings: clone(merged) };
  },
};

const stackRootBody = z.object({ stackRoot: z.string().min(1) });

const applyAction: ActionSpec = {
  action: "stack.apply",
  targetType: "stack-root",
  // The definition itself is checked later and reported with documentCode.
  previewBody: [stackRootBody],
  executeBody: [stackRootBody],
  target: (ctx) => parseWith(stackRootBody, ctx.body).stackRoot,
  proposal: (ctx) => {
    const result = normalizeDefinition(ctx.body.definition);
    if (!result.ok) {
      throw fail.document("invalid_stack_definition", "The stack definition is not valid.", {
        issues: result.issues,
      });
    }
    return { definition: result.definition, revision: result.revision };
  },
  observe: async (ctx, p, target) => {
    const root = await canonicalStackRoot(target, "documentCode");
    const doc = await readDocument(root);
    const definition = p.definition as StackDefinition;
    const plan = planApply(ctx, root, definition, p.revision as string);
    return {
      document: {
        path: doc.path,
        kind: doc.kind,
        fingerprint: doc.fingerprint,
        revision: doc.revision,
        issues: doc.issues,
      },
      stack: {
        changed: plan.changed,
        existing: plan.existing ? clone(plan.existing) : null,
        revision: p.revision,
        definition,
      },
    };
  },
  precheck: (receipt, fresh) => {
    const before = receipt.observed.document as Json;
    const now = fresh.document as Json;
    if (before.kind !== now.kind || before.fingerprint !== now.fingerprint) {
      throw fail.document("stack_definition_changed", "The stack file changed since the preview.", {
        path: now.path,
      });
    }
  },
  execute: async (ctx, p, target, receipt) => {
    const root = await canonicalStackRoot(target, "documentCode");
    const doc = receipt.observed.document as { kind: string; fingerprint: string | null };
    const definition = p.definition as StackDefinition;
    const written = await writeDocument(root, documentText(definition), doc);
    const base = {
      saved: true,
      path: written.path,
      fingerprint: written.fingerprint,
      revision: p.revision,
    };
    try {
      const applied = applyStack(ctx, root, definition, p.revision as string);
      return { ...base, applied: true, changed: applied.changed, stack: applied.stack };
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      return { ...base, applied: false, error: { code: error.code, message: error.message } };
    }
  },
};

function pair(path: string, spec: ActionSpec): Route[] {
  return [
    post(`${path}/preview`, (ctx) => preview(ctx, spec), [keySchema, ...(spec.previewBody ?? [])]),
    post(`${path}/execute`, (ctx) => execute(ctx, spec), [
      executeSchema,
      ...(spec.executeBody ?? []),
    ]),
  ];
}

export const receiptRoutes: Route[] = [
  ...pair("/v1/actions/ports/:port/reclaim", reclaimAction),
  ...pair("/v1/actions/claims/prune", claimsPruneAction),
  ...pair("/v1/actions/claims/:claimId/reassign", reassignAction),
  ...pair("/v1/actions/claims/:claimId/delete", deleteAction),
  ...pair("/v1/actions/stacks/apply", applyAction),
  ...pair("/v1/actions/stacks/prune", stacksPruneAction),
  ...pair("/v1/actions/settings", settingsAction),
];
