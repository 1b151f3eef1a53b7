/**
 * A page stops by the size of what the model is shown: over real stdio, a compact page of
 * ports with live listeners holds more ports than a `detail: "full"` page, every page of
 * either form reaches a host whole, and walking the compact pages returns every port once.
 */
import assert from "node:assert/strict";
import { call, startBridge, withSimulator } from "./harness.ts";
import { PAGE_CHARS } from "../../src/results/pagination.ts";

type Data = Record<string, unknown>;
type Page = { items: Data[]; page: { nextCursor?: string } };

/** Gemini CLI cuts a result over this many characters (it keeps the head and tail). */
const GEMINI_CUT = 40_000;

Deno.test("pages are cut by the form the model is shown", async () => {
  const env = await withSimulator();
  const workspace = await Deno.realPath(env.dir);
  const bridge = await startBridge({ socketPath: env.socketPath });
  const PORTS = 100;
  try {
    for (let i = 0; i < PORTS; i++) {
      const lease = await call(bridge, "portreeve_lease_acquire", {
        claim: { project: "bound", workspaceRoot: workspace, component: `c${i}`, endpoint: "http" },
        allocation: { mode: "sticky", preferredPort: 31000 + i },
      });
      const data = lease.envelope.data!;
      env.sim.control.addListener(data.port as number, 60000 + i, { ppid: 1, command: "node" });
      const confirmed = await call(bridge, "portreeve_lease_confirm", {
        credentialHandle: data.credentialHandle,
        rootPid: 60000 + i,
      });
      assert.equal(confirmed.isError, false, confirmed.text);
    }
    const walk = async (extra: Data) => {
      const pages: { items: number; text: number }[] = [];
      const ports: number[] = [];
      let afterCursor: string | undefined;
      do {
        const r = await call(bridge, "portreeve_ports_list", {
          listening: true,
          limit: 200,
          ...extra,
          ...(afterCursor ? { afterCursor } : {}),
        });
        assert.equal(r.isError, false, r.text);
        const page = r.envelope.data as unknown as Page;
        pages.push({ items: page.items.length, text: r.text.length });
        ports.push(...page.items.map((item) => item.port as number));
        afterCursor = page.page.nextCursor;
      } while (afterCursor && pages.length < 50);
      return { pages, ports };
    };
    const compact = await walk({});
    const full = await walk({ detail: "full" });
    const expected = Array.from({ length: PORTS }, (_, i) => 31000 + i);
    assert.deepEqual(compact.ports, expected, "every port once, in order");
    assert.deepEqual(full.ports, expected);
    assert.ok(full.pages.length > 1, "full records need more than one page");
    assert.ok(
      compact.pages[0].items > full.pages[0].items * 1.5,
      `compact page ${compact.pages[0].items} ports, full page ${full.pages[0].items}`,
    );
    for (const page of [...compact.pages, ...full.pages]) {
      assert.ok(page.text < GEMINI_CUT, `a ${page.text}-character result reaches hosts whole`);
    }
    // A full compact page is close to the bound, not far below it.
    assert.ok(compact.pages[0].text > PAGE_CHARS * 0.8, `${compact.pages[0].text} characters`);
  } finally {
    await bridge.close();
    await env.cleanup();
  }
});
