/**
 * The gate every request passes before the client sends it: the effect of the concrete
 * request is computed from its route's declaration and body, and a consequential one goes
 * out only with an `ApprovalProof` for exactly that request. Proofs are minted by the one
 * minter handed out below, once, to src/catalogue/approval.ts, which mints only after the
 * person approved (or the approval mode lets the request through); a proof is spent by its
 * first request. So a new tool, or a new input value of an old one, cannot reach a
 * consequential effect without that module's say.
 */
import { type Effect, effectOf } from "./effects.ts";
import type { Route } from "./routes.ts";

/** Why the approval module let a consequential request through. */
export type ApprovalBasis =
  /** The person ticked the box in the host's question. */
  | "person"
  /** A receipt approved or executed before: the daemon executes or replays it. */
  | "receipt_answered"
  /** `--approval auto` and a host that cannot ask: the preview told the agent to ask them. */
  | "agent_asks_user"
  /** `--approval off`: the reference bridge's behaviour, for trusted unattended runs. */
  | "approval_off";

/** The request a proof is good for: one route, one path, one body. */
export interface GatedRequest {
  route: Route;
  path: string;
  body: Record<string, unknown>;
}

/** Proof that the approval module let one request through. Only `MINTED` ones count. */
export class ApprovalProof {
  readonly #route: string;
  readonly #path: string;
  readonly #body: string;
  constructor(request: GatedRequest, readonly basis: ApprovalBasis) {
    this.#route = request.route.route;
    this.#path = request.path;
    this.#body = JSON.stringify(request.body);
  }

  covers(route: Route, path: string, body: Record<string, unknown>): boolean {
    return this.#route === route.route && this.#path === path &&
      this.#body === JSON.stringify(body);
  }
}

const MINTED = new WeakSet<ApprovalProof>();
const SPENT = new WeakSet<ApprovalProof>();

export type Minter = (request: GatedRequest, basis: ApprovalBasis) => ApprovalProof;

let minterTaken = false;

/**
 * The one minter, for src/catalogue/approval.ts, which takes it when it loads. Any second
 * taker throws, so a module that took it first would break approval loudly, not quietly.
 */
export function takeApprovalMinter(): Minter {
  if (minterTaken) throw new Error("the approval minter belongs to src/catalogue/approval.ts");
  minterTaken = true;
  return (request, basis) => {
    const proof = new ApprovalProof(request, basis);
    MINTED.add(proof);
    return proof;
  };
}

/** A consequential request without a valid proof: a bridge bug, never sent. */
export class GateRefusal extends Error {
  override name = "GateRefusal";
}

/**
 * The effect of sending `body` to `path` of `route`; throws `GateRefusal` (and nothing may
 * be sent) when it is consequential and `proof` is not a fresh proof for this very request.
 */
export function admit(
  route: Route,
  path: string,
  body: Record<string, unknown>,
  proof?: ApprovalProof,
): Effect {
  const effect = effectOf(route.effect, body);
  if (effect.level !== "consequential") return effect;
  const why = !proof
    ? "no approval"
    : !MINTED.has(proof)
    ? "an approval the approval module did not mint"
    : SPENT.has(proof)
    ? "an approval already spent"
    : !proof.covers(route, path, body)
    ? "an approval for another request"
    : undefined;
  if (why) {
    throw new GateRefusal(
      `refused to send ${route.method} ${path} (${effect.what}) with ${why}; nothing was sent`,
    );
  }
  SPENT.add(proof!);
  return effect;
}
