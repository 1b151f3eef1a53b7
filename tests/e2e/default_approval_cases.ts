/**
 * The default-approval cases for one protocol era, defined once (what they prove: the header of
 * tests/e2e/default_approval_test.ts). That file runs them for the legacy era in the fast suite;
 * tests/reliability/default_approval_modern_test.ts runs them for 2026-07-28.
 */
import assert from "node:assert/strict";
import { type Bridge, type Era, startBridge, withSimulator } from "./harness.ts";
import { DECLINE, type Env, failsWith, person, runningClaim, succeeds } from "./receipt_steps.ts";

type Data = Record<string, unknown>;

const RECLAIM_EXECUTE = /\/reclaim\/execute$/;

/** A simulator observing this machine, with a confirmed run whose root listens for real. */
async function world(
  body: (env: Env, running: Awaited<ReturnType<typeof runningClaim>>) => Promise<void>,
) {
  const env = await withSimulator({ observeHost: true });
  let running: Awaited<ReturnType<typeof runningClaim>> | undefined;
  try {
    running = await runningClaim(env);
    await body(env, running);
  } finally {
    await running?.process.stop();
    await env.cleanup();
  }
}

async function bridge(
  env: Env,
  era: Era,
  serveArgs: string[],
  answers?: ReturnType<typeof person>,
) {
  return await startBridge({
    socketPath: env.socketPath,
    era,
    serveArgs,
    elicitation: answers?.answer,
  });
}

const executes = (env: Env) =>
  env.sim.requests.filter((r) => r.method === "POST" && RECLAIM_EXECUTE.test(r.path)).length;

/**
 * The cases for one era, on one bridge B: the exact default command, on a host that cannot ask.
 * A is a bridge whose host asks; B's refusal of A's receipt is also tried opted in and off.
 */
export function defaultApprovalCases(era: Era): void {
  Deno.test(`default approval (${era}): a host that cannot ask, the default flags`, async (t) => {
    await world(async (env, running) => {
      const { port, process } = running;
      const b = await bridge(env, era, []);
      try {
        await t.step("a host without elicitation cannot get a real listener killed", async () => {
          const diag = await succeeds(b, "portreeve_diagnostics", {});
          assert.deepEqual((diag.data.bridge as Data).approval, {
            mode: "required",
            hostCanAsk: false,
          });
          const { data } = await succeeds(b, "portreeve_port_reclaim_preview", {
            port,
            policy: "force-after-grace",
          });
          assert.equal(data.approval, "unavailable");
          assert.match(data.nextStep as string, /--approval auto/);
          const before = env.sim.requests.length;
          const refused = await failsWith(b, "portreeve_port_reclaim_execute", {
            receiptId: data.receiptId,
            port,
          }, "portreeve_approval_unavailable");
          assert.equal(refused.details.reason, "host_cannot_ask");
          assert.match(refused.nextStep, /^Tell the user/);
          assert.match(refused.nextStep, /--approval auto/);
          assert.doesNotMatch(refused.nextStep, /\b(install|start|launch|run) /i);
          // The acquire gate follows the same rule.
          const gate = await failsWith(b, "portreeve_lease_acquire", {
            claim: running.claim,
            allocation: { replacementPolicy: "force-after-grace" },
          }, "portreeve_approval_unavailable");
          assert.match(gate.nextStep, /--approval auto/);
          assert.equal(env.sim.requests.length, before, "nothing reached the daemon");
          assert.equal(executes(env), 0);
          assert.ok(process.alive(), "the listener still runs");
        });

        await t.step(
          "a receipt declined on bridge A is refused on bridge B, whatever B's flags",
          async () => {
            const answers = person(DECLINE);
            const a: Bridge = await bridge(env, era, [], answers);
            let receiptId: string;
            try {
              const { data } = await succeeds(a, "portreeve_port_reclaim_preview", {
                port,
                policy: "force-after-grace",
              });
              assert.equal(data.approval, "host_asks_user");
              receiptId = data.receiptId as string;
              await failsWith(
                a,
                "portreeve_port_reclaim_execute",
                { receiptId, port },
                "portreeve_approval_declined",
              );
              assert.equal(answers.questions.length, 1);
            } finally {
              await a.close();
            }
            // B: the exact default command, a host that cannot ask; then B opted in, then off.
            for (const flags of [[], ["--approval", "auto"], ["--approval", "off"]]) {
              const other = flags.length === 0 ? b : await bridge(env, era, flags);
              try {
                const before = env.sim.requests.length;
                const refused = await failsWith(
                  other,
                  "portreeve_port_reclaim_execute",
                  { receiptId, port },
                  "portreeve_not_found",
                );
                assert.equal(refused.details.reason, "not_previewed_here", flags.join(" "));
                assert.match(refused.nextStep, /^Preview again through this bridge/);
                assert.equal(env.sim.requests.length, before, "nothing reached the daemon");
              } finally {
                if (other !== b) await other.close();
              }
            }
            assert.equal(executes(env), 0, "the daemon never got an execute");
            assert.ok(process.alive(), "the declined process still runs");
          },
        );
      } finally {
        await b.close();
      }
    });
  });
}
