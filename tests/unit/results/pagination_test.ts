/**
 * Bridge-side pages: the daemon's order, limit, item counts, cursors bound to their listing,
 * and the fit that keeps a page whole in the host it goes to (Codex keeps about 12 KB).
 */
import assert from "node:assert/strict";
import {
  asSent,
  bindCursor,
  DEFAULT_FIT,
  fittingCount,
  type PageFit,
  paginate,
  scopeOf,
  unbindCursor,
} from "../../../src/results/pagination.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { INPUT_BOUNDS } from "../../../src/shared/input_bounds.ts";

const items = Array.from({ length: 10 }, (_, i) => ({ id: `c${9 - i}`, port: 9 - i }));
const key = (item: { port: number }) => item.port;
const readWhole = () => "portreeve_port_inspect (port)";
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

Deno.test("pages keep the daemon's order, honour limit, count their items, end without a cursor", () => {
  const scope = scopeOf("claims", { project: "web" });
  const first = paginate(items, key, { readWhole, scope, limit: 4 });
  assert.deepEqual(first.items.map((i) => i.port), [9, 8, 7, 6]);
  assert.equal(first.page.itemCount, 4);
  assert.ok(first.page.nextCursor);
  const second = paginate(items, key, {
    readWhole,
    scope,
    limit: 4,
    afterCursor: first.page.nextCursor,
  });
  assert.deepEqual(second.items.map((i) => i.port), [5, 4, 3, 2]);
  const last = paginate(items, key, {
    readWhole,
    scope,
    limit: 4,
    afterCursor: second.page.nextCursor,
  });
  assert.deepEqual(last.items.map((i) => i.port), [1, 0]);
  assert.deepEqual(last.page, { itemCount: 2 }, "no cursor on the last page");
});

Deno.test("a page continues after its last item wherever the daemon now lists it", () => {
  const scope = scopeOf("claims", {});
  const first = paginate(items, key, { readWhole, scope, limit: 3 });
  assert.deepEqual(first.items.map((i) => i.port), [9, 8, 7]);
  const after = (list: typeof items) =>
    paginate(list, key, { readWhole, scope, limit: 3, afterCursor: first.page.nextCursor })
      .items.map((i) => i.port);
  // One listed before it went away: the page still starts right after port 7.
  assert.deepEqual(after(items.filter((i) => i.port !== 9)), [6, 5, 4]);
  // The last one served went away: the page starts where it was.
  assert.deepEqual(after(items.filter((i) => i.port !== 7)), [6, 5, 4]);
});

Deno.test("a cursor is refused under other filters, by another tool, or when forged", () => {
  const scope = scopeOf("claims", { project: "web" });
  const { page } = paginate(items, key, { readWhole, scope, limit: 2 });
  const refused = (afterCursor: string, other = scopeOf("claims", { project: "api" })) =>
    assert.throws(
      () => paginate(items, key, { readWhole, scope: other, limit: 2, afterCursor }),
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

Deno.test("a page stops before its fit's budget of records and the cursor continues", () => {
  const big = Array.from({ length: 200 }, (_, i) => ({ port: i, note: "x".repeat(400) }));
  const scope = scopeOf("ports", {});
  const seen: number[] = [];
  let afterCursor: string | undefined;
  let pages = 0;
  do {
    const page = paginate(big, key, { readWhole, scope, limit: 200, afterCursor });
    assert.ok(bytes(page.items) <= DEFAULT_FIT.budget + 2, "within the bound");
    assert.equal(page.page.itemCount, page.items.length);
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
  assert.equal(fittingCount([{ a: "x".repeat(DEFAULT_FIT.budget * 2) }, { b: 1 }]), 1);
  assert.equal(fittingCount([{ a: 1 }, { b: 2 }]), 2);
  assert.equal(
    fittingCount([{ a: "xxxxxxxx" }, { a: "xxxxxxxx" }], { itemBytes: asSent, budget: 20 }),
    1,
  );
});

Deno.test("a page fits the host it goes to: a larger limit holds more of the same records", () => {
  const big = Array.from({ length: 200 }, (_, i) => ({ port: i, note: "x".repeat(400) }));
  const scope = scopeOf("ports", {});
  const fit = (budget: number): PageFit => ({ itemBytes: asSent, budget });
  const small = paginate(big, key, { readWhole, scope, limit: 200, fit: fit(10_500) });
  const large = paginate(big, key, { readWhole, scope, limit: 200, fit: fit(38_500) });
  assert.ok(bytes(small.items) <= 10_500 + 2 && bytes(large.items) <= 38_500 + 2);
  assert.ok(
    large.items.length > 3 * small.items.length,
    `${small.items.length} / ${large.items.length}`,
  );
  // Bytes, not characters: a record of two-byte characters counts twice as much.
  const wide = Array.from({ length: 40 }, (_, i) => ({ port: i, note: "é".repeat(400) }));
  const widePage = paginate(wide, key, { readWhole, scope, limit: 200, fit: fit(10_500) });
  assert.ok(bytes(widePage.items) <= 10_500 + 2, `${bytes(widePage.items)} bytes`);
});

Deno.test("a page is measured in the form the model is shown, not as the daemon sent it", () => {
  const big = Array.from({ length: 200 }, (_, i) => ({ port: i, note: "x".repeat(400) }));
  const scope = scopeOf("ports", {});
  const sent = paginate(big, key, { readWhole, scope, limit: 200 });
  // Shown without its note, a record is ~12 bytes: all 200 fit in one page.
  const shown = (item: unknown) => bytes({ port: (item as { port: number }).port });
  const fit = { itemBytes: shown, budget: DEFAULT_FIT.budget };
  const compact = paginate(big, key, { readWhole, scope, limit: 200, fit });
  assert.ok(sent.items.length < 100, `${sent.items.length} records as sent`);
  assert.equal(compact.items.length, 200);
  assert.deepEqual(compact.page, { itemCount: 200 });
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

Deno.test("a record larger than a page comes alone, cut to fit, saying how to read it whole", () => {
  const root = "/w/" + "r".repeat(600_000);
  const records = [
    { id: "a", port: 1, workspaceRoot: "/w/a" },
    { id: "b", port: 2, workspaceRoot: root, component: "web" },
    { id: "c", port: 3, workspaceRoot: "/w/c" },
  ];
  const scope = scopeOf("claims", {});
  const pages = [];
  let afterCursor: string | undefined;
  do {
    const page = paginate(records, key, { readWhole, scope, limit: 200, afterCursor });
    assert.ok(bytes(page.items) <= DEFAULT_FIT.budget, "every page within the bound");
    pages.push(page.items);
    afterCursor = page.page.nextCursor;
  } while (afterCursor);
  assert.deepEqual(pages.map((items) => items.map((i) => i.id)), [["a"], ["b"], ["c"]]);
  const cut = pages[1][0];
  assert.equal(cut.component, "web", "short fields stay whole");
  assert.ok(cut.workspaceRoot.startsWith("/w/rrr"), "the head is kept");
  assert.match(
    cut.workspaceRoot,
    /…\[cut from 600,003 characters; read the whole record with portreeve_port_inspect \(port\)\]$/,
  );
});

Deno.test("a record too large for a page in many small parts keeps its first entries, and says so", () => {
  const listeners = Array.from({ length: 2_000 }, (_, pid) => ({ pid, command: `node ${pid}` }));
  const page = paginate([{ port: 7, listeners }], key, {
    readWhole,
    scope: scopeOf("ports", {}),
    limit: 200,
  });
  const [only] = page.items as unknown as {
    port: number;
    listeners: unknown[];
    truncated: string;
  }[];
  assert.ok(bytes(page.items) <= DEFAULT_FIT.budget);
  assert.equal(only.port, 7);
  assert.ok(only.listeners.length > 100 && only.listeners.length < 2_000);
  assert.match(
    only.truncated,
    /^[\d,]+ list items, map entries or nested parts left out; read the whole record with portreeve_port_inspect \(port\)$/,
  );
});

Deno.test("cursors stay within INPUT_BOUNDS.cursor however long the ids they name", () => {
  // Control characters take six bytes each in JSON: the worst case for a cursor's size.
  const long = (c: string) => c.repeat(50_000);
  const records = ["\u0001", "é", "\u{1F600}"].map((c, i) => ({ id: `${i}`, name: long(c) + i }));
  const sortKey = (r: typeof records[number]) => r.name;
  const scope = scopeOf("portreeve_launcher_operations_list", { stackId: "x".repeat(36) });
  const seen: string[] = [];
  let afterCursor: string | undefined;
  do {
    const page = paginate(records, sortKey, { readWhole, scope, limit: 1, afterCursor });
    seen.push(...page.items.map((r) => r.id));
    afterCursor = page.page.nextCursor;
    if (afterCursor) {
      assert.ok(afterCursor.length <= INPUT_BOUNDS.cursor.max, `${afterCursor.length}`);
    }
  } while (afterCursor);
  assert.deepEqual(seen, ["0", "1", "2"], "every record once, in order");
});

Deno.test("a daemon cursor too long to be passed on is an invalid response, not a broken page", () => {
  const scope = scopeOf("portreeve_history_list", {});
  assert.throws(
    () => bindCursor(scope, "c".repeat(INPUT_BOUNDS.cursor.max)),
    (e) => e instanceof BridgeError && e.code === "portreeve_invalid_response",
  );
  assert.equal(bindCursor(scope, "c".repeat(INPUT_BOUNDS.cursor.max - 12)).length, 1024);
});
