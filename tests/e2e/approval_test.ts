/**
 * A person approves executes through the host: the real `serve` process, a client that
 * declares form elicitation and answers like a person would, in the 2025 era (a real
 * `elicitation/create` request), `auto` and pinned 2026-07-28 (input-required rounds). The
 * simulator's request log proves what reached the daemon. The cases of a host that asks under
 * the default flags are the steps of one session per era: one bridge, each step with claims and
 * a person of its own, looking only at what it caused. A "yes" that comes too late, which waits
 * past a real deadline, is tests/reliability/approval_timeout_test.ts.
 */
import assert from "node:assert/strict";
import { DaemonClock } from "../support/daemon_clock.ts";
import type { ElicitResult } from "@modelcontextprotocol/client";
import { type Bridge, call, type Era } from "./harness.ts";
import { ACCEPT, DECLINE, listenedPort, person } from "./receipt_steps.ts";
import { MAX_PARTS, QUESTION_GUIDE, QUESTION_HEADER } from "../../src/catalogue/question.ts";
import { questionLines, readQuestion } from "../support/question_reader.ts";
import {
  chair,
  deletePreview,
  fails,
  ok,
  receiptLine,
  sendsNothing,
  session,
} from "./approval_steps.ts";

type Data = Record<string, unknown>;

/**
 * The two ways a host can be asked: a 2025 `elicitation/create` request and a 2026-07-28
 * input-required round. An `auto` client negotiates one of them (foundation_test.ts and
 * transport_test.ts run that negotiation); the in-process effects walk covers every approval
 * situation for every tool.
 */
const ERAS: readonly Era[] = ["legacy", "modern"];

/** Whatever else a host lets the user type must never travel on. */
const ACCEPT_TYPED: ElicitResult = {
  action: "accept",
  content: { approve: true, note: "typed by the user" },
};
const UNTICKED: ElicitResult = { action: "accept", content: { approve: false } };
const CANCEL: ElicitResult = { action: "cancel" };
const DECLINED = "portreeve_approval_declined";
const UNAVAILABLE = "portreeve_approval_unavailable";

/** A path under the world's folder of about `length` characters, none of whose folders exist. */
function longRoot(env: { dir: string }, tag: string, length: number): string {
  let root = `${env.dir}/${tag}`;
  while (root.length < length) root += `/${"d".repeat(Math.min(200, length - root.length - 1))}`;
  return root;
}

/** An idle claim (leased, then abandoned) in `workspaceRoot`: its id. */
async function idleClaim(bridge: Bridge, workspaceRoot: string, component: string) {
  const { data: lease } = await ok(bridge, "portreeve_lease_acquire", {
    claim: { project: "web", workspaceRoot, component },
  });
  await ok(bridge, "portreeve_lease_abandon", {
    credentialHandle: lease.credentialHandle,
    reason: "client-cancelled",
  });
  return lease.claimId as string;
}

const definition = (components: string[]) => ({
  version: 1,
  project: "shop",
  components: Object.fromEntries(components.map((c) => [c, { endpoints: { http: {} } }])),
});

/**
 * What a host that asks sees under the default flags, one bridge per era. Each step seats its
 * own person, uses claims of its own, and counts only the frames, requests and questions that
 * came after it began; the steps that take the same path in both eras (refusals before any
 * question, one question at a time, the wording of each question) run in the legacy era. A
 * change asked in parts runs in both: a real request per part, or an input-required round.
 */
for (const era of ERAS) {
  Deno.test(`approval (${era}): a host that asks, default flags`, async (t) => {
    const host = chair();
    // The daemon's clock, which one step sets 10 minutes behind the bridge's.
    const clock = new DaemonClock();
    const simulator = { clock };
    await session(era, { answers: host, simulator }, async (bridge, env) => {
      await t.step("accept executes once; the replay asks nothing", async () => {
        const answers = host.seat(person(ACCEPT_TYPED));
        const frameCount = bridge.stdoutFrames().length;
        const before = env.sim.requests.length;
        const diag = await ok(bridge, "portreeve_diagnostics", {});
        // Default flags: required.
        assert.deepEqual((diag.data.bridge as Data).approval, {
          mode: "required",
          hostCanAsk: true,
        });
        const { claimId, receiptId, preview } = await deletePreview(bridge, env, "api");
        assert.equal(preview.approval, "host_asks_user");
        assert.match(preview.nextStep as string, /: the host asks them to approve\.$/);

        const done = await ok(bridge, "portreeve_claim_delete_execute", { receiptId, claimId });
        assert.equal(done.data.changed, true);
        assert.equal(answers.questions.length, 1);
        const [question] = answers.questions;
        assert.deepEqual(questionLines(question.message), [
          QUESTION_HEADER,
          QUESTION_GUIDE,
          "The agent asks to delete this claim; its port becomes free for others.",
          // The claim was never confirmed, so it has no port to name.
          "The claim, with no port",
          `  id: ${claimId}`,
          "  project: web",
          "  component: api",
          "  endpoint: default",
          `  workspace: ${env.dir}`,
          receiptLine(preview),
        ]);
        assert.ok("requestedSchema" in question);
        assert.deepEqual(Object.keys(question.requestedSchema.properties), ["approve"]);
        const approve = question.requestedSchema.properties.approve;
        assert.equal(approve.type, "boolean");
        // The SDK client names itself after no known host: words that fit any widget.
        assert.equal(
          approve.description,
          "Yes (true) to let PortReeve make it; no (false) to change nothing.",
        );
        // 2025: a real server-to-client request; 2026-07-28: an input-required round, retried.
        const frames = bridge.stdoutFrames().slice(frameCount).map((line) => JSON.parse(line));
        const pushed = frames.filter((f) => f.method === "elicitation/create" && "id" in f);
        const rounds = frames.filter((f) => f.result?.resultType === "input_required");
        if (era === "legacy") assert.deepEqual([pushed.length, rounds.length], [1, 0]);
        if (era === "modern") assert.deepEqual([pushed.length, rounds.length], [0, 1]);

        const sent = env.sim.requests.slice(before)
          .filter((r) => r.path.endsWith("/delete/execute"));
        assert.equal(sent.length, 1);
        assert.equal((sent[0].body as Data).receiptId, receiptId);
        assert.doesNotMatch(JSON.stringify(sent[0].body), /typed by the user/);

        const again = await ok(bridge, "portreeve_claim_delete_execute", { receiptId, claimId });
        assert.equal(again.data.replayed, true);
        assert.equal(answers.questions.length, 1, "a replay is never asked about");
      });

      await t.step("decline, cancel and an unticked box send nothing", async () => {
        const answers = host.seat(person(DECLINE, CANCEL, UNTICKED));
        const refused: { claimId: string; receiptId: string }[] = [];
        const said: [string, string, RegExp][] = [
          ["declined", "decline", /The host answered "decline" to the approval question/],
          ["cancelled", "cancel", /The host answered "cancel" to the approval question/],
          ["unticked", "accept", /answered the approval question .* without approve: true/],
        ];
        for (const [component, answer, wording] of said) {
          const { claimId, receiptId } = await deletePreview(bridge, env, component);
          const error = await sendsNothing(
            env,
            () => fails(bridge, "portreeve_claim_delete_execute", { receiptId, claimId }, DECLINED),
          );
          assert.equal(error.retryable, false);
          assert.equal(error.details.receiptId, receiptId);
          // The host's answer is said once: quoted in the message, or else in the details.
          assert.notEqual(
            error.details.answer === answer,
            error.message.includes(`"${answer}"`),
            `${component}: ${error.message}`,
          );
          // What the host answered, not who decided: hosts also decline by themselves.
          assert.match(error.message, wording);
          assert.doesNotMatch(error.message, /\b(user|person) (did not|declined|refused)/i);
          assert.match(error.message, /nothing was sent to the daemon/);
          assert.match(
            error.nextStep,
            /^Ask the user what they want instead; do not call this execute again/,
          );
          refused.push({ claimId, receiptId });
        }
        assert.equal(answers.questions.length, 3);

        // An answered receipt is never put to the user again, and stays refused.
        for (const args of refused) {
          const again = await sendsNothing(
            env,
            () => fails(bridge, "portreeve_claim_delete_execute", args, DECLINED),
          );
          assert.match(again.message, /was declined earlier; nothing was sent/);
          assert.equal(again.details.answer, "declined_earlier");
        }
        assert.equal(answers.questions.length, 3);
        for (const { claimId } of refused) {
          assert.ok(env.sim.control.state.claims.has(claimId), `claim ${claimId} is still there`);
        }
      });

      await t.step(
        "a change too large for one question is asked in parts; sent only after the last yes",
        async () => {
          const executes = () => env.sim.requests.filter((r) => r.path.endsWith("/execute")).length;
          /** Yes to every part; each answer notes what the daemon had got by then. */
          const seenAtEachYes: number[] = [];
          const yes = () => {
            seenAtEachYes.push(executes());
            return Promise.resolve(ACCEPT);
          };
          const approver = () => host.seat(person(...Array.from({ length: MAX_PARTS }, () => yes)));

          // The red team's delete: a claim whose root is 1,900 characters.
          let answers = approver();
          seenAtEachYes.length = 0;
          const long = await idleClaim(bridge, longRoot(env, "one", 1_900), "long");
          const { data: deletion } = await ok(bridge, "portreeve_claim_delete_preview", {
            claimId: long,
          });
          let before = executes();
          await ok(bridge, "portreeve_claim_delete_execute", {
            receiptId: deletion.receiptId,
            claimId: long,
          });
          assert.equal(answers.questions.length, 2);
          assert.match(
            answers.questions[1].message,
            /^› PortReeve bridge — approval needed, part 2 of 2: the claim \(end\)\./,
          );
          assert.deepEqual(seenAtEachYes, [before, before], "nothing was sent before the last yes");
          assert.equal(executes(), before + 1);
          assert.equal(env.sim.control.state.claims.has(long), false);

          // A no to part 2 of 2 sends nothing at all.
          answers = host.seat(person(ACCEPT, DECLINE));
          const kept = await idleClaim(bridge, longRoot(env, "two", 1_900), "kept");
          const { data: keep } = await ok(bridge, "portreeve_claim_delete_preview", {
            claimId: kept,
          });
          const refused = await sendsNothing(
            env,
            () =>
              fails(bridge, "portreeve_claim_delete_execute", {
                receiptId: keep.receiptId,
                claimId: kept,
              }, DECLINED),
          );
          assert.match(
            refused.message,
            /answered "decline" to part 2 of 2 of the approval question/,
          );
          assert.equal(answers.questions.length, 2);
          assert.ok(env.sim.control.state.claims.has(kept));

          // The red team's prune: 14 claims with long roots (the one kept above is a 15th).
          answers = approver();
          seenAtEachYes.length = 0;
          const gone = [];
          for (let i = 0; i < 14; i++) {
            gone.push(await idleClaim(bridge, longRoot(env, `gone-${i}`, 700), `gone${i}`));
          }
          const { data: prune } = await ok(bridge, "portreeve_claims_prune_preview", {
            olderThanMilliseconds: 0,
          });
          assert.equal(prune.approval, "host_asks_user");
          before = executes();
          const pruned = await ok(bridge, "portreeve_claims_prune_execute", {
            receiptId: prune.receiptId,
          });
          assert.ok(answers.questions.length > 1, `${answers.questions.length} parts`);
          assert.deepEqual(seenAtEachYes, seenAtEachYes.map(() => before));
          for (const id of gone) {
            assert.ok(
              (pruned.data.result as Data & { deletedClaimIds: string[] }).deletedClaimIds.includes(
                id,
              ),
            );
          }
          const read = readQuestion(answers.questions.map((q) => q.message));
          assert.deepEqual(read.faults, []);

          // The red team's settings change: 4,096 ports excluded, each named.
          answers = approver();
          seenAtEachYes.length = 0;
          const ports = Array.from({ length: 4_096 }, (_, i) => 49_151 - 3 * i);
          const { data: settings } = await ok(bridge, "portreeve_settings_update_preview", {
            updates: { excludedPorts: ports },
          });
          before = executes();
          await ok(bridge, "portreeve_settings_update_execute", { receiptId: settings.receiptId });
          assert.ok(answers.questions.length > 1, `${answers.questions.length} parts`);
          assert.deepEqual(seenAtEachYes, seenAtEachYes.map(() => before));
          assert.equal(executes(), before + 1);
          assert.deepEqual(
            readQuestion(answers.questions.map((q) => q.message)).values.at(-1)?.value,
            [...ports].sort((a, b) => a - b).join(", "),
          );
        },
      );

      if (era !== "legacy") return;

      await t.step("mismatched and unknown receipts fail before any question", async () => {
        const answers = host.seat(person());
        const first = await deletePreview(bridge, env, "first");
        const second = await deletePreview(bridge, env, "second");
        const mismatch = await sendsNothing(
          env,
          () =>
            fails(bridge, "portreeve_claim_delete_execute", {
              receiptId: first.receiptId,
              claimId: second.claimId,
            }, "portreeve_conflict"),
        );
        assert.equal(mismatch.details.receiptCode, "receipt_mismatch");
        assert.equal(mismatch.retryable, false);
        assert.match(mismatch.nextStep, /preview again/);

        const unknown = await sendsNothing(
          env,
          () =>
            fails(bridge, "portreeve_claim_delete_execute", {
              receiptId: crypto.randomUUID(),
              claimId: first.claimId,
            }, "portreeve_not_found"),
        );
        assert.equal(unknown.details.receiptCode, "not_found");
        assert.match(unknown.message, /was not issued through this bridge process/);
        assert.match(unknown.nextStep, /^Preview again through this bridge/);
        assert.equal(answers.questions.length, 0);
      });

      await t.step("an expired receipt fails before any question", async () => {
        const answers = host.seat(person());
        // Once the claim exists, the daemon's clock falls 10 minutes behind: the receipt it
        // issues is already past its expiry by the clock the bridge and the person live by.
        const { data: lease } = await ok(bridge, "portreeve_lease_acquire", {
          claim: { project: "web", workspaceRoot: env.dir, component: "late" },
        });
        await ok(bridge, "portreeve_lease_abandon", {
          credentialHandle: lease.credentialHandle,
          reason: "client-cancelled",
        });
        clock.behind(600_000);
        try {
          const claimId = lease.claimId as string;
          const { data } = await ok(bridge, "portreeve_claim_delete_preview", { claimId });
          const receiptId = data.receiptId as string;
          const expired = await sendsNothing(
            env,
            () =>
              fails(
                bridge,
                "portreeve_claim_delete_execute",
                { receiptId, claimId },
                "portreeve_conflict",
              ),
          );
          assert.equal(expired.details.receiptCode, "receipt_expired");
          assert.match(expired.nextStep, /preview again/);
          assert.equal(answers.questions.length, 0);
        } finally {
          clock.ahead();
        }
      });

      await t.step("one question per receipt at a time; a failing host is retryable", async () => {
        let release!: () => void;
        const held = new Promise<void>((done) => release = done);
        const answers = host.seat(person(async () => {
          await held;
          return ACCEPT;
        }, () => Promise.reject(new Error("the dialog crashed"))));
        const { claimId, receiptId } = await deletePreview(bridge, env, "busy");
        const first = call(bridge, "portreeve_claim_delete_execute", { receiptId, claimId });
        await answers.asked(1);
        const second = await sendsNothing(
          env,
          () =>
            fails(bridge, "portreeve_claim_delete_execute", { receiptId, claimId }, UNAVAILABLE),
        );
        assert.equal(second.details.reason, "question_open");
        release();
        assert.equal((await first).isError, false);
        assert.equal(answers.questions.length, 1);

        const other = await deletePreview(bridge, env, "crash");
        const failed = await sendsNothing(
          env,
          () =>
            fails(bridge, "portreeve_claim_delete_execute", {
              receiptId: other.receiptId,
              claimId: other.claimId,
            }, UNAVAILABLE),
        );
        assert.equal(failed.retryable, true);
        assert.equal(failed.details.reason, "host_failed");
      });

      await t.step("each question names what will happen, to what, and the expiry", async () => {
        const answers = host.seat(person(ACCEPT, ACCEPT, ACCEPT, ACCEPT));
        const asked = () => answers.questions.at(-1)!.message;
        /** Executes the preview and checks the whole question: header, guide, change, receipt. */
        const execute = async (name: string, preview: Data, args: Data, change: string[]) => {
          const done = await ok(bridge, `portreeve_${name}_execute`, {
            receiptId: preview.receiptId,
            ...args,
          });
          assert.equal(done.data.changed, true);
          assert.deepEqual(questionLines(asked()), [
            QUESTION_HEADER,
            QUESTION_GUIDE,
            ...change,
            receiptLine(preview),
          ]);
        };

        // Port reclaim: the port, and each pid with its command.
        const port = await listenedPort(bridge, env);
        const reclaim = await ok(bridge, "portreeve_port_reclaim_preview", {
          port,
          policy: "graceful",
        });
        await execute("port_reclaim", reclaim.data, { port }, [
          `The agent asks to reclaim port ${port}; the daemon would terminate 1 process, listed below.`,
          "Policy: graceful",
          "Process 1 of 1, pid 4242",
          "  command: node",
        ]);

        // Stack apply: the file's path, and the fingerprint of the bytes it replaces.
        const root = `${env.dir}/shop`;
        await Deno.mkdir(root);
        const create = await ok(bridge, "portreeve_stack_apply_preview", {
          stackRoot: root,
          definition: definition(["web"]),
        });
        const revision = (rev: Data) => (rev.proposal as Data).revision as string;
        await execute("stack_apply", create.data, { stackRoot: root }, [
          "The agent asks to create the stack file named below.",
          "The daemon would then register a new stack at the revision below.",
          "The stack file",
          `  path: ${root}/portreeve.stack.json`,
          "The stack",
          `  new revision: ${revision(create.data).slice(0, 12)}`,
        ]);
        const replace = await ok(bridge, "portreeve_stack_apply_preview", {
          stackRoot: root,
          definition: definition(["web", "db"]),
        });
        const observed = replace.data.observed as { document: Data; stack: { existing: Data } };
        const fingerprint = observed.document.fingerprint as string;
        await execute("stack_apply", replace.data, { stackRoot: root }, [
          "The agent asks to replace the stack file named below.",
          "The daemon would then update the stack below to the revision below.",
          "The stack file",
          `  path: ${root}/portreeve.stack.json`,
          `  fingerprint of its current bytes: ${fingerprint.slice(0, 12)}`,
          "The stack",
          `  id: ${observed.stack.existing.id}`,
          `  new revision: ${revision(replace.data).slice(0, 12)}`,
        ]);

        // Settings: each setting's old and new value.
        const settings = await ok(bridge, "portreeve_settings_update_preview", {
          updates: { leaseTtlMilliseconds: 20_000 },
        });
        await execute("settings_update", settings.data, {}, [
          "The agent asks to change 1 setting.",
          "Setting 1 of 1",
          "  name: leaseTtlMilliseconds",
          "  from: 15000",
          "  to: 20000",
        ]);
        assert.equal(answers.questions.length, 4);
      });
    });
  });
}

/** The flags a host that asks can still turn off, and a host that cannot ask, in each mode. */
for (const era of ["legacy"] as const) {
  Deno.test(`approval (${era}): --approval off never asks`, async () => {
    const answers = person();
    await session(era, { answers, serveArgs: ["--approval", "off"] }, async (bridge, env) => {
      const { claimId, receiptId, preview } = await deletePreview(bridge, env, "off");
      assert.equal(preview.approval, "agent_asks_user");
      assert.match(preview.nextStep as string, /only after they explicitly approve, call /);
      const done = await ok(bridge, "portreeve_claim_delete_execute", { receiptId, claimId });
      assert.equal(done.data.changed, true);
      assert.equal(answers.questions.length, 0);
    });
  });

  for (const mode of [undefined, "auto", "required", "off"] as const) {
    const flags = mode === undefined ? [] : ["--approval", mode];
    Deno.test(`approval (${era}): a client that cannot ask, ${mode ? `--approval ${mode}` : "default flags"}`, async () => {
      await session(era, { serveArgs: flags }, async (bridge, env) => {
        const { claimId, receiptId, preview } = await deletePreview(bridge, env, mode ?? "dflt");
        if (mode === undefined || mode === "required") {
          assert.equal(preview.approval, "unavailable");
          assert.match(preview.nextStep as string, /will refuse/);
          assert.match(preview.nextStep as string, /--approval auto/);
          const error = await sendsNothing(
            env,
            () =>
              fails(bridge, "portreeve_claim_delete_execute", { receiptId, claimId }, UNAVAILABLE),
          );
          assert.equal(error.details.reason, "host_cannot_ask");
          assert.equal(error.retryable, false);
          assert.match(error.nextStep, /^Tell the user/);
          assert.match(error.nextStep, /--approval auto to portreeve's entry/);
          assert.equal(env.sim.control.state.claims.has(claimId), true, "the claim is still there");
          return;
        }
        // Opted in (auto) or off: the host's own tool prompt, or nobody, stands in.
        assert.equal(preview.approval, "agent_asks_user");
        const done = await ok(bridge, "portreeve_claim_delete_execute", { receiptId, claimId });
        assert.equal(done.data.changed, true);
      });
    });
  }
}
