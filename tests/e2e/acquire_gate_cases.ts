/**
 * The acquire gate's cases for one protocol era, defined once (what they prove: the header of
 * tests/e2e/acquire_gate_test.ts). That file runs them for the legacy era in the fast suite;
 * tests/reliability/acquire_gate_modern_test.ts runs them for 2026-07-28, whose asking differs
 * only in the transport the approval tests already cover both ways.
 */
import assert from "node:assert/strict";
import { type Bridge, type Era, startBridge, withSimulator } from "./harness.ts";
import {
  ACCEPT,
  DECLINE,
  type Env,
  failsWith,
  type Listener,
  person,
  runningClaim,
  succeeds,
} from "./receipt_steps.ts";
import { QUESTION_GUIDE, QUESTION_HEADER } from "../../src/catalogue/question.ts";
import { questionLines } from "../support/question_reader.ts";

export type Data = Record<string, unknown>;

type Running = Awaited<ReturnType<typeof runningClaim>>;

/** A simulator observing this machine, with a confirmed run whose root listens for real. */
export async function world(body: (env: Env, running: Running) => Promise<void>): Promise<void> {
  const env = await withSimulator({ observeHost: true });
  let process: Listener | undefined;
  try {
    // The run is set up on the daemon itself, so every mode of the bridge can be tried.
    const running = await runningClaim(env);
    process = running.process;
    await body(env, running);
  } finally {
    await process?.stop();
    await env.cleanup();
  }
}

/** A bridge of this era, flags and person on `env`'s daemon for `body`, then closed. */
export async function withBridge(
  env: Env,
  opts: { era?: Era; serveArgs?: string[]; answers?: ReturnType<typeof person> },
  body: (bridge: Bridge) => Promise<void>,
): Promise<void> {
  const bridge = await startBridge({
    socketPath: env.socketPath,
    era: opts.era,
    serveArgs: opts.serveArgs,
    elicitation: opts.answers?.answer,
  });
  try {
    await body(bridge);
  } finally {
    await bridge.close();
  }
}

/** One bridge in a world of its own. */
export function session(
  opts: Parameters<typeof withBridge>[1],
  body: (bridge: Bridge, env: Env, running: Running) => Promise<void>,
): Promise<void> {
  return world((env, running) => withBridge(env, opts, (bridge) => body(bridge, env, running)));
}

export const acquires = (env: Env) =>
  env.sim.requests.filter((r) => r.method === "POST" && r.path === "/v1/leases/acquire").length;

/** The question put about reclaiming `running` with `policy`, line by line. */
function expectedQuestion(
  env: Env,
  running: { port: number; process: Listener },
  policy: string,
  runId: string,
): string[] {
  const signals = policy === "force-after-grace"
    ? "SIGTERM, then SIGKILL after the grace period,"
    : "SIGTERM";
  return [
    QUESTION_HEADER,
    QUESTION_GUIDE,
    `The agent asks to lease a claim with replacementPolicy ${policy}.`,
    `The claim's confirmed run holds port ${running.port}; to lease it, the daemon would first send ${signals} to 1 process, listed below, and release that run.`,
    "The claim",
    "  project: web",
    "  component: vite",
    "  endpoint: default",
    `  workspace: ${env.dir}`,
    `Run id: ${runId}`,
    `Process 1 of 1, pid ${running.process.pid}`,
    "  command: deno",
    "If you do not approve, those processes keep running; nothing has been sent yet.",
  ];
}

const runIdOf = async (bridge: Bridge, port: number) => {
  const { data } = await succeeds(bridge, "portreeve_port_inspect", { port, detail: "full" });
  return (data.run as Data).id as string;
};

/** The cases for one era: its host asks (or cannot) the era's way. */
export function acquireGateCases(era: Era): void {
  Deno.test(`acquire gate (${era}): declined reclaims leave the process alive; approved signals it`, async () => {
    const answers = person(DECLINE, DECLINE, ACCEPT);
    await session({ era, answers }, async (bridge, env, running) => {
      const { claim, port, process } = running;
      const runId = await runIdOf(bridge, port);
      // The attack: the person declines the receipt-bound reclaim…
      const { data: preview } = await succeeds(bridge, "portreeve_port_reclaim_preview", {
        port,
        policy: "force-after-grace",
      });
      await failsWith(bridge, "portreeve_port_reclaim_execute", {
        receiptId: preview.receiptId,
        port,
      }, "portreeve_approval_declined");
      // …so the agent acquires the claim with force-after-grace: the person is asked again.
      const declined = await failsWith(bridge, "portreeve_lease_acquire", {
        claim,
        allocation: { replacementPolicy: "force-after-grace" },
      }, "portreeve_approval_declined");
      assert.match(declined.message, /nothing was sent to the daemon/);
      assert.deepEqual(
        questionLines(answers.questions[1].message),
        expectedQuestion(env, running, "force-after-grace", runId),
      );
      assert.equal(acquires(env), 1, "only the set-up acquire reached the daemon");
      assert.ok(process.alive(), "the declined process still runs");
      const still = await succeeds(bridge, "portreeve_port_inspect", { port });
      assert.equal(still.data.classification, "verified");

      // Approved: the daemon reclaims the run (the process is signalled) and leases the port.
      const { data: lease } = await succeeds(bridge, "portreeve_lease_acquire", {
        claim,
        allocation: { replacementPolicy: "graceful" },
      });
      assert.deepEqual(
        questionLines(answers.questions[2].message),
        expectedQuestion(env, running, "graceful", runId),
      );
      assert.equal(lease.port, port);
      assert.equal((await process.status).signal, "SIGTERM");
      assert.equal(answers.questions.length, 3);
    });
  });

  Deno.test(`acquire gate (${era}): default flags, a host that cannot ask is refused naming the opt-in, with 0 daemon requests`, async () => {
    await session({ era }, async (bridge, env, running) => {
      const before = env.sim.requests.length;
      for (const policy of ["graceful", "force-after-grace"]) {
        const refused = await failsWith(bridge, "portreeve_lease_acquire", {
          claim: running.claim,
          allocation: { replacementPolicy: policy },
        }, "portreeve_approval_unavailable");
        assert.equal(refused.details.reason, "reclaim_host_cannot_ask");
        assert.match(refused.nextStep, /--approval auto/);
        assert.doesNotMatch(refused.nextStep, /\b(install|start|run) /i);
      }
      assert.equal(env.sim.requests.length, before, "not one request reached the daemon");
      assert.ok(running.process.alive());
    });
  });

  Deno.test(`acquire gate (${era}): --approval auto, a host that cannot ask is sent to the receipt pair`, async () => {
    await session({ era, serveArgs: ["--approval", "auto"] }, async (bridge, env, running) => {
      const before = env.sim.requests.length;
      const refused = await failsWith(bridge, "portreeve_lease_acquire", {
        claim: running.claim,
        allocation: { replacementPolicy: "graceful" },
      }, "portreeve_approval_needs_receipt");
      assert.match(refused.nextStep, /portreeve_port_reclaim_preview/);
      assert.match(refused.nextStep, /portreeve_port_reclaim_execute/);
      assert.equal(env.sim.requests.length, before, "not one request reached the daemon");
      assert.ok(running.process.alive());
    });
  });
}
