/**
 * Bridge-side pages: order, limit, cursors bound to their listing, and the size bound that
 * keeps a page whole in every host (Gemini CLI cuts results over 40,000 characters).
 */
import assert from "node:assert/strict";
import {
  bindCursor,
  fittingCount,
  PAGE_CHARS,
  paginate,
  scopeOf,
  unbindCursor,
} from "../../../src/catalogue/pagination.ts";
import { BridgeError } from "../../../src/errors.ts";

const items = Array.from({ length: 10 }, (_, i) => ({ id: `c${9 - i}`, port: 9 - i }));
const key = (item: { port: number }) => [item.port];

Deno.test("pages follow the sort key, honour limit and end without a cursor", () => {
  const scope = scopeOf("claims", { project: "web" });
  const first = paginate(items, key, { scope, limit: 4 });
  assert.deepEqual(first.items.map((i) => i.port), [0, 1, 2, 3]);
  assert.ok(first.page.nextCursor);
  const second = paginate(items, key, { scope, limit: 4, afterCursor: first.page.nextCursor });
  assert.deepEqual(second.items.map((i) => i.port), [4, 5, 6, 7]);
  const last = paginate(items, key, { scope, limit: 4, afterCursor: second.page.nextCursor });
  assert.deepEqual(last.items.map((i) => i.port), [8, 9]);
  assert.equal(last.page.nextCursor, undefined, "no cursor on the last page");
});

Deno.test("a cursor is refused under other filters, by another tool, or when forged", () => {
  const scope = scopeOf("claims", { project: "web" });
  const { page } = paginate(items, key, { scope, limit: 2 });
  const refused = (afterCursor: string, other = scopeOf("claims", { project: "api" })) =>
    assert.throws(
      () => paginate(items, key, { scope: other, limit: 2, afterCursor }),
      (e) => e instanceof BridgeError && e.code === "portreeve_invalid_input",
    );
  refused(page.nextCursor!);
  refused(page.nextCursor!, scopeOf("stacks", { project: "web" }));
  refused("not-a-cursor", scope);
  const bound = bindCursor(scope, "daemon-cursor-7");
  assert.equal(unbindCursor(bound, scope), "daemon-cursor-7");
  assert.throws(() => unbindCursor(bound, scopeOf("claims", {})), BridgeError);
  assert.throws(() => unbindCursor(page.nextCursor!, scope), BridgeError, "a key cursor");
});

Deno.test("a page stops before PAGE_CHARS of records and the cursor continues", () => {
  const big = Array.from({ length: 200 }, (_, i) => ({ port: i, note: "x".repeat(400) }));
  const scope = scopeOf("ports", {});
  const seen: number[] = [];
  let afterCursor: string | undefined;
  let pages = 0;
  do {
    const page = paginate(big, key, { scope, limit: 200, afterCursor });
    assert.ok(JSON.stringify(page.items).length <= PAGE_CHARS + 2, "within the bound");
    assert.ok(page.items.length < 200, "fewer than limit when records are large");
    seen.push(...page.items.map((i) => i.port));
    afterCursor = page.page.nextCursor;
    pages++;
  } while (afterCursor !== undefined && pages < 50);
  assert.deepEqual(seen, big.map((i) => i.port), "every record once, in order");
  assert.ok(pages > 1);
});

Deno.test("fittingCount keeps at least one record, so a huge one still advances", () => {
  assert.equal(fittingCount([]), 0);
  assert.equal(fittingCount([{ a: "x".repeat(PAGE_CHARS * 2) }, { b: 1 }]), 1);
  assert.equal(fittingCount([{ a: 1 }, { b: 2 }]), 2);
  const asSent = (item: unknown) => JSON.stringify(item).length;
  assert.equal(fittingCount([{ a: "xxxxxxxx" }, { a: "xxxxxxxx" }], asSent, 20), 1);
});

Deno.test("a page is measured in the form the model is shown, not as the daemon sent it", () => {
  const big = Array.from({ length: 200 }, (_, i) => ({ port: i, note: "x".repeat(400) }));
  const scope = scopeOf("ports", {});
  const sent = paginate(big, key, { scope, limit: 200 });
  // Shown without its note, a record is ~12 characters: all 200 fit in one page.
  const shown = (item: unknown) => JSON.stringify({ port: (item as { port: number }).port }).length;
  const compact = paginate(big, key, { scope, limit: 200, itemChars: shown });
  assert.ok(sent.items.length < 100, `${sent.items.length} records as sent`);
  assert.equal(compact.items.length, 200);
  assert.deepEqual(compact.page, {});
});

Deno.test("a bound daemon cursor carries the daemon's cursor as it is, behind a short prefix", () => {
  const scope = scopeOf("portreeve_history_list", { eventType: "run.released" });
  const daemon = "eyJ2ZXJzaW9uIjoxLCJpZCI6IjAwMDAwMDBlIn0";
  const bound = bindCursor(scope, daemon);
  assert.equal(bound.length, daemon.length + 12);
  assert.equal(unbindCursor(bound, scope), daemon);
  const invalid = (cursor: string, why: RegExp) =>
    assert.throws(
      () => unbindCursor(cursor, scope),
      (e) =>
        e instanceof BridgeError && e.code === "portreeve_invalid_input" && why.test(e.message),
    );
  invalid(daemon, /not a cursor this bridge issued/);
  invalid("b1.0000000g.x", /not a cursor this bridge issued/);
  invalid(`${bound.slice(0, 12)}`, /not a cursor this bridge issued/);
  invalid(bindCursor(scopeOf("portreeve_history_list", {}), daemon), /other filters/);
});
