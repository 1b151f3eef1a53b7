/**
 * Output flood. 200 concurrent calls written in one burst (large list answers
 * among them, so stdout carries megabytes), then a long run of sequential calls. Every answer
 * must match its own request, each id is answered exactly once, stdout stays frames only, and
 * the bridge's memory stays bounded (VmRSS / VmHWM from /proc). No time is asserted: the
 * burst's duration depends on the machine, and is printed instead.
 */
import assert from "node:assert/strict";
import { checkAnswer, mib, mixedCall, withLoadedBridge } from "./load.ts";
import { frame, idKey, type ToolResult } from "../support/raw_peer.ts";
import { sleep } from "../support/timed.ts";
import { RELIABILITY_BOUNDS, reportFigure } from "../support/reliability_figures.ts";

const CONCURRENT = 200;
const SEQUENTIAL = 1_500;
/** Peak RSS bound for the bridge process (a bare Deno is ~35 MiB, the SDK ~70 MiB). */
const PEAK_LIMIT_MIB = RELIABILITY_BOUNDS.peakRssMiB;

Deno.test("output flood: 200 concurrent and 1,500 sequential calls stay correct, one answer per id, bounded memory", async () => {
  await withLoadedBridge(120, async (peer, seeded) => {
    const idle = await peer.memory();

    const calls = Array.from({ length: CONCURRENT }, (_, i) => mixedCall(i, seeded));
    const burst = calls.map((call, i) =>
      frame({
        jsonrpc: "2.0",
        id: `flood-${i}`,
        method: "tools/call",
        params: { name: call.name, arguments: call.args },
      })
    ).join("");
    const started = performance.now();
    await peer.send(burst);
    const answers = await Promise.all(calls.map((_, i) => peer.response(`flood-${i}`, 60_000)));
    const burstMs = performance.now() - started;
    answers.forEach((m, i) => {
      assert.ok("result" in m, `flood-${i}: ${JSON.stringify(m.error)}`);
      checkAnswer(calls[i], m.result as ToolResult);
    });
    const afterBurst = await peer.memory();
    const stdoutBytes = peer.stdoutText().length;

    const seqStarted = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) {
      const call = mixedCall(CONCURRENT + i, seeded);
      checkAnswer(call, await peer.tool(call.name, call.args, 30_000));
    }
    const seqMs = performance.now() - seqStarted;
    await sleep(300); // any duplicate answer would have arrived by now
    for (let i = 0; i < CONCURRENT; i++) {
      assert.equal(peer.byId.get(idKey(`flood-${i}`))?.length, 1, `flood-${i} answered once`);
    }
    for (const [key, list] of peer.byId) assert.equal(list.length, 1, `${key} answered once`);
    const end = await peer.memory();
    assert.deepEqual(peer.violations, [], "stdout carried frames only");
    assert.ok(end.hwmKiB < PEAK_LIMIT_MIB * 1024, `peak RSS ${mib(end.hwmKiB)}`);
    console.log(
      `burst of ${CONCURRENT}: ${Math.round(burstMs)} ms, ${
        (stdoutBytes / 1024 / 1024).toFixed(1)
      } MiB of stdout; ${SEQUENTIAL} sequential: ${Math.round(seqMs)} ms (${
        (seqMs / SEQUENTIAL).toFixed(2)
      } ms/call)\nbridge RSS idle ${mib(idle.rssKiB)}, after burst ${mib(afterBurst.rssKiB)}, end ${
        mib(end.rssKiB)
      }, peak ${mib(end.hwmKiB)}`,
    );
    await reportFigure(
      "concurrent burst, then sequential calls",
      `${CONCURRENT} at once (${(stdoutBytes / 1024 / 1024).toFixed(1)} MiB of answers), then ` +
        `${SEQUENTIAL.toLocaleString("en-US")} one by one; peak RSS ${mib(end.hwmKiB)}`,
    );
  });
});
