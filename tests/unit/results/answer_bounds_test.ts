/**
 * The catalogue bounds every answer, whatever tool made it: a daemon error of megabytes, a
 * page holding a record larger than a page, and a single record larger than the host shows
 * whole (the same cases over real stdio, with frame sizes:
 * tests/reliability/answer_bounds_test.ts).
 */
import { questionLines } from "../../support/question_reader.ts";
import { claimRecord } from "../../support/records.ts";
import { envelopeOf } from "../../../src/results/result.ts";
import assert from "node:assert/strict";
import { daemonError, inOrder, ok, toolRig } from "../../support/scripted_daemon.ts";
import { ANSWER_BOUNDS } from "../../../src/shared/answer_bounds.ts";
import { DEFAULT_FIT, SMALLEST_RESULT_BYTES } from "../../../src/results/pagination.ts";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import { recorded } from "../../support/recorded.ts";
import type { Json } from "../../../src/shared/json.ts";

function claim(n: number, project: string, workspaceRoot: string): Json {
  return claimRecord(n, { project, workspaceRoot, component: "web" });
}

const HUGE = "/w/" + "r".repeat(600_000);

Deno.test("a daemon error of megabytes is a result of kilobytes, its text and data alike", async () => {
  await using rig = toolRig(inOrder(
    daemonError(404, "not_found", "m".repeat(2 * 1024 * 1024), {
      details: { note: "n".repeat(1024 * 1024) },
    }),
  ));
  const id = "00000000-0000-4000-8000-000000000001";
  const result = await new Catalogue("full").call("portreeve_claim_get", { id }, rig.ctx);
  const size = JSON.stringify(result).length;
  assert.ok(size < 20_000, `${size} characters`);
  // What any host shows of it fits the smallest result a host shows whole.
  const text = (result.content as { text: string }[])[0].text;
  const bytes = new TextEncoder().encode(text).length;
  assert.ok(bytes <= SMALLEST_RESULT_BYTES, `${bytes}-byte error text`);
  const envelope = envelopeOf(result);
  assert.ok(!envelope.ok);
  const { error } = envelope;
  assert.equal(error.code, "portreeve_not_found");
  assert.match(String(error.message), /…\[cut from 2,097,152 characters\]$/);
});

Deno.test("a page holding a record larger than a page: the record alone, cut to fit", async () => {
  const claims = [claim(1, "a", "/w/a"), claim(2, "b", HUGE), claim(3, "c", "/w/c")];
  await using rig = toolRig(() => ok(claims));
  const seen: string[][] = [];
  let afterCursor: string | undefined;
  do {
    const page = await rig.call("portreeve_claims_list", afterCursor ? { afterCursor } : {});
    const data = page.data as { items: Json[]; page: { nextCursor?: string } };
    assert.ok(JSON.stringify(data.items).length <= DEFAULT_FIT.budget, "within the page bound");
    seen.push(data.items.map((c) => String(c.id).slice(-1)));
    afterCursor = data.page.nextCursor;
  } while (afterCursor);
  assert.deepEqual(seen, [["1"], ["2"], ["3"]]);
});

Deno.test("a single record larger than the host shows whole is cut to fit, saying so", async () => {
  await using rig = toolRig(inOrder(ok(claim(2, "b", HUGE)), ok(claim(2, "b", HUGE))));
  const id = "00000000-0000-4000-8000-000000000002";
  const one = await rig.call("portreeve_claim_get", { id });
  assert.ok(new TextEncoder().encode(one.text).length <= SMALLEST_RESULT_BYTES, "the host's limit");
  const root = String((one.data!.identity as Json).workspaceRoot);
  // The note names the host's own limit (the data gets what the envelope leaves of it).
  const limit = SMALLEST_RESULT_BYTES.toLocaleString("en-US");
  assert.ok(
    root.endsWith(
      `…[cut from 600,003 characters; this host shows a result of at most ${limit} bytes whole]`,
    ),
    root.slice(-120),
  );
  // A host that shows more gets more, never past ANSWER_BOUNDS.result.
  const catalogue = new Catalogue("full");
  const larger = await catalogue.call("portreeve_claim_get", { id }, {
    ...rig.ctx,
    resultLimitBytes: 1_000_000,
  });
  const text = (larger.content as { text: string }[])[0].text;
  assert.ok(text.length > 50_000 && text.length <= ANSWER_BOUNDS.result.max, `${text.length}`);
});

Deno.test("a preview quoting a huge command: its summary and each of the person's questions are bounded", async () => {
  const reclaim = recorded("portReclaimPreview");
  const data = structuredClone(reclaim.data) as { observed: { targets: Json[] } };
  for (const target of data.observed.targets) target.command = "node " + "a".repeat(30_000);
  await using rig = toolRig(inOrder(ok(data)));
  const preview = await rig.call("portreeve_port_reclaim_preview", {
    port: 18080,
    policy: "graceful",
  });
  assert.equal(preview.isError, false, preview.text);
  const summary = String(preview.data!.summary);
  assert.ok(summary.length <= ANSWER_BOUNDS.question.max, `${summary.length}`);
  const asking = rig.ctx.receipts.get(String(preview.data!.receiptId))!.asking;
  assert.equal(asking.kind, "question");
  const parts = asking.kind === "question" ? asking.parts : [];
  // The command is shown whole, in parts; each part within the bound, its receipt line whole.
  assert.ok(parts.length > 1, `${parts.length} parts`);
  for (const part of parts) {
    assert.ok(part.length <= ANSWER_BOUNDS.question.max, `${part.length}`);
    assert.match(
      questionLines(part).at(-1)!,
      /^Receipt [0-9a-f]{8} expires at \d\d:\d\d:\d\d UTC\.$/,
    );
  }
});
