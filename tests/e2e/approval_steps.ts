/**
 * The steps the approval end-to-end tests share: a bridge of one era over real stdio against
 * the simulator, with a client that answers questions like a person (or cannot), and an idle
 * claim's delete preview to approve or not.
 */
import assert from "node:assert/strict";
import type { ElicitRequest } from "@modelcontextprotocol/client";
import { type Bridge, type Era, startBridge, withSimulator } from "./harness.ts";
import { type Env, failsWith, person, succeeds } from "./receipt_steps.ts";
import type { SimulatorOptions } from "../../src/simulator/mod.ts";

type Data = Record<string, unknown>;
type Question = ElicitRequest["params"];

export async function session(
  era: Era,
  opts: {
    /** Declares form elicitation; every question goes to this person. */
    answers?: Pick<ReturnType<typeof person>, "answer">;
    serveArgs?: string[];
    simulator?: Partial<SimulatorOptions>;
  },
  body: (bridge: Bridge, env: Env) => Promise<void>,
): Promise<void> {
  const env = await withSimulator(opts.simulator);
  const bridge = await startBridge({
    socketPath: env.socketPath,
    era,
    serveArgs: opts.serveArgs,
    elicitation: opts.answers?.answer,
  });
  try {
    await body(bridge, env);
  } finally {
    await bridge.close();
    await env.cleanup();
  }
}

/**
 * The person at the host, changed between the steps of one session: each question goes to
 * whoever `seat` put there last (nobody answers until then).
 */
export function chair() {
  let seated = person();
  return {
    seat<Person extends ReturnType<typeof person>>(next: Person): Person {
      seated = next;
      return next;
    },
    answer: (question: Question) => seated.answer(question),
  };
}

export const ok = succeeds;
export const fails = failsWith;

/** The question's last line, as the bridge writes it from the preview's receipt. */
export function receiptLine(preview: Data): string {
  const id = (preview.receiptId as string).slice(0, 8);
  return `Receipt ${id} expires at ${(preview.expiresAt as string).slice(11, 19)} UTC.`;
}

/** An idle claim and its delete preview. */
export async function deletePreview(bridge: Bridge, env: Env, component: string) {
  const { data: lease } = await ok(bridge, "portreeve_lease_acquire", {
    claim: { project: "web", workspaceRoot: env.dir, component },
  });
  await ok(bridge, "portreeve_lease_abandon", {
    credentialHandle: lease.credentialHandle,
    reason: "client-cancelled",
  });
  const claimId = lease.claimId as string;
  const { data } = await ok(bridge, "portreeve_claim_delete_preview", { claimId });
  return { claimId, receiptId: data.receiptId as string, preview: data };
}

/** Runs `action` and asserts it sent nothing to the daemon. */
export async function sendsNothing<T>(env: Env, action: () => Promise<T>): Promise<T> {
  const before = env.sim.requests.length;
  const result = await action();
  assert.equal(env.sim.requests.length, before, "nothing may reach the daemon");
  return result;
}
