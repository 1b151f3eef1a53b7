/**
 * The gate every request passes before the client sends it: the effect of the concrete
 * request is computed from its route's declaration and body, and a consequential one goes
 * out only with an `ApprovalProof` for exactly that request, minted by this very gate. Each
 * bridge builds one gate and hands it to its daemon client (which admits through it) and its
 * minter, once, to its approvals (src/catalogue/approval.ts), which mint only after the person
 * approved (or the approval mode lets the request through); a proof is spent by its first
 * request. So a new tool, or a new input value of an old one, cannot reach a consequential
 * effect without the approval module's say, and a proof of one bridge is nothing to another.
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

/** Proof that the approval module let one request through. Only its own gate's count. */
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

export type Minter = (request: GatedRequest, basis: ApprovalBasis) => ApprovalProof;

/** A consequential request without a valid proof: a bridge bug, never sent. */
export class GateRefusal extends Error {
  override name = "GateRefusal";
}

/**
 * One bridge's gate: the proofs its minter made, and those already spent. A client built with a
 * gate whose minter nobody took can send nothing consequential at all.
 */
export class ApprovalGate {
  readonly #minted = new WeakSet<ApprovalProof>();
  readonly #spent = new WeakSet<ApprovalProof>();
  #minterTaken = false;

  /**
   * The gate's one minter, for the approvals of the bridge that built the gate. A second taker
   * throws, so code that took it first would break approval loudly, not quietly.
   */
  takeMinter(): Minter {
    if (this.#minterTaken) throw new Error("this gate's minter was already taken");
    this.#minterTaken = true;
    return (request, basis) => {
      const proof = new ApprovalProof(request, basis);
      this.#minted.add(proof);
      return proof;
    };
  }

  /**
   * The effect of sending `body` to `path` of `route`; throws `GateRefusal` (and nothing may
   * be sent) when it is consequential and `proof` is not a fresh proof of this gate's for this
   * very request.
   */
  admit(
    route: Route,
    path: string,
    body: Record<string, unknown>,
    proof?: ApprovalProof,
  ): Effect {
    const effect = effectOf(route.effect, body);
    if (effect.level !== "consequential") return effect;
    const why = !proof
      ? "no approval"
      : !this.#minted.has(proof)
      ? "an approval this bridge's approval module did not mint"
      : this.#spent.has(proof)
      ? "an approval already spent"
      : !proof.covers(route, path, body)
      ? "an approval for another request"
      : undefined;
    if (why) {
      throw new GateRefusal(
        `refused to send ${route.method} ${path} (${effect.what}) with ${why}; nothing was sent`,
      );
    }
    this.#spent.add(proof!);
    return effect;
  }
}
