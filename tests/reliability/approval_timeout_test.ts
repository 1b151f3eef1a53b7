/**
 * No answer in time: the person's "yes" lands after the bridge stopped waiting (the shortest
 * --approval-ms), so it must not count; the execute is retryable and asking again works. It
 * waits past a real deadline in the bridge process, so it lives in the reliability suite.
 */
import assert from "node:assert/strict";
import type { ElicitResult } from "@modelcontextprotocol/client";
import { ACCEPT, person } from "../e2e/receipt_steps.ts";
import { deletePreview, fails, ok, sendsNothing, session } from "../e2e/approval_steps.ts";

const UNAVAILABLE = "portreeve_approval_unavailable";

for (const era of ["legacy", "modern"] as const) {
  Deno.test(`approval (${era}): no answer in time is retryable; asking again works`, async () => {
    // The person's "yes" lands after the bridge stopped waiting (--approval-ms, at its least):
    // late, so it must not count. The wait starts when the question arrives, after the bridge
    // started its own clock, so it always ends past the bridge's deadline: a lower bound, not
    // a race. (In the 2026 era the host itself must come back, so nothing else could end it.)
    const WAIT_MS = 1000;
    const late = () =>
      new Promise<ElicitResult>((done) => {
        setTimeout(() => done(ACCEPT), WAIT_MS + 500); // timing-ok: past the bridge's deadline
      });
    const answers = person(late, ACCEPT);
    await session(
      era,
      { answers, serveArgs: ["--approval-ms", `${WAIT_MS}`] },
      async (bridge, env) => {
        const { claimId, receiptId } = await deletePreview(bridge, env, "slow");
        const error = await sendsNothing(
          env,
          () =>
            fails(bridge, "portreeve_claim_delete_execute", { receiptId, claimId }, UNAVAILABLE),
        );
        assert.equal(error.retryable, true);
        assert.equal(error.details.reason, "no_answer");
        // The late "yes" did not count: the receipt was never answered, so it is asked again.
        const done = await ok(bridge, "portreeve_claim_delete_execute", { receiptId, claimId });
        assert.equal(done.data.changed, true);
        assert.equal(answers.questions.length, 2);
      },
    );
  });
}
