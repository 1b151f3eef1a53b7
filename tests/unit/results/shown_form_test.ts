/**
 * A result as a host shows it: one envelope, or (Cline) the whole result as JSON, the envelope
 * twice and once escaped. The measures are exact for any value, the reserve around a page holds
 * its envelope twice, and a claims page made for a result-json host fits its limit as that
 * host shows it, however quote-heavy its records, while paging on reaches every claim.
 */
import assert from "node:assert/strict";
import { shownForm } from "../../../src/results/shown_form.ts";
import { success } from "../../../src/results/result.ts";
import { ok, toolRig } from "../../support/scripted_daemon.ts";
import { recorded } from "../../support/recorded.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

const RESULT_JSON = shownForm("result-json");
const ENVELOPE = shownForm("envelope");

/** Values whose JSON escapes a lot, or not at all. */
const VALUES: unknown[] = [
  {},
  { a: 'say "hi"\\ there\n', b: [1, 2, null, true] },
  { quotes: '"'.repeat(50), slashes: "\\".repeat(50), control: "\u0001\t\r" },
  { unicode: "é 日本 🚀 \u2028", plain: "x".repeat(300) },
  ['"', "\\", "", "\n"],
];

Deno.test("shown form: one envelope is its JSON; the result as JSON is exactly the wrapper and both copies", () => {
  for (const value of VALUES) {
    const result = success(value);
    const text = (result.content[0] as { text: string }).text;
    assert.equal(ENVELOPE.resultBytes(result), bytes(text));
    assert.equal(ENVELOPE.valueBytes(value), bytes(JSON.stringify(value)));
    const envelope = result.structuredContent;
    // What Cline shows its model is JSON.stringify of the result, measured to the byte.
    assert.equal(RESULT_JSON.resultBytes(result), bytes(JSON.stringify(result)));
    assert.equal(
      RESULT_JSON.resultBytes(result),
      RESULT_JSON.roomBytes(0) + RESULT_JSON.valueBytes(envelope),
    );
  }
});

Deno.test("shown form: the reserve around a page holds a page's own envelope twice with room to spare", () => {
  const page = success({
    items: [],
    page: { itemCount: 200, nextCursor: "c".repeat(120) },
  });
  const own = RESULT_JSON.resultBytes(page);
  assert.ok(
    own * 4 < RESULT_JSON.roomBytes(1_500),
    `${own} bytes of ${RESULT_JSON.roomBytes(1_500)}`,
  );
  assert.equal(ENVELOPE.roomBytes(1_500), 1_500);
});

Deno.test("a claims page for a host that shows the result as JSON fits its limit that way, and paging reaches every claim", async () => {
  const [claim] = recorded("claimsOfWorkspace").data;
  const claims = Array.from({ length: 40 }, (_, i) => ({
    ...claim,
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    // Quotes and backslashes double in the escaped copy: the worst case for a fixed budget.
    identity: { ...claim.identity, project: `p"${i}"\\${'"'.repeat(i % 7)}` },
  }));
  await using rig = toolRig(() => ok(claims));
  rig.ctx.resultLimitBytes = 8_000;
  rig.ctx.resultShownAs = "result-json";
  const seen: string[] = [];
  let afterCursor: string | undefined;
  let pages = 0;
  do {
    const r = await rig.call("portreeve_claims_list", {
      limit: 200,
      ...(afterCursor ? { afterCursor } : {}),
    });
    assert.equal(r.isError, false, r.text);
    const shown = bytes(JSON.stringify(r.result));
    assert.ok(shown <= 8_000, `page ${pages}: ${shown} bytes of result JSON`);
    const data = r.data as { items: { id: string }[]; page: { nextCursor?: string } };
    assert.ok(data.items.length > 1, "a page holds more than one claim");
    seen.push(...data.items.map((item) => item.id));
    afterCursor = data.page.nextCursor;
    pages++;
  } while (afterCursor !== undefined && pages < 40);
  assert.deepEqual(seen, claims.map((c) => c.id));
  assert.ok(pages > 2, `${pages} pages`);
});
