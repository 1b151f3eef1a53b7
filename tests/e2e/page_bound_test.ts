/**
 * A page fits the host it goes to: over real stdio, the bridge knows its host by the name it
 * gives (in `initialize`, or on the 2026-07-28 era in each request's envelope, as Copilot CLI
 * does) and fills a page only up to what that host shows its model whole (its profile's
 * `resultLimitBytes`; the smallest known for a host of no known name). A compact
 * page holds more ports than a `detail: "full"` one, every page says how many items it
 * holds, and walking the pages returns every port once, in the daemon's order. A page is
 * measured as its host shows it: Cline (`@cline/core`) shows the whole result as JSON, the
 * envelope twice, and its pages fit its limit that way. By the same name, an error is flagged
 * with `isError` or not as the host's profile says.
 */
import assert from "node:assert/strict";
import type { DiscoverResult } from "@modelcontextprotocol/client";
import { type Bridge, call, type Era, startBridge, withSimulator } from "./harness.ts";
import { hostTreatments, MCP_CLIENT_NAMES } from "../../src/profiles/hosts.ts";
import { treatmentFor } from "../../src/shared/host_treatment.ts";
import { shownForm } from "../../src/results/shown_form.ts";
import { seeder } from "./seed.ts";

type Data = Record<string, unknown>;
type Page = { items: Data[]; page: { itemCount: number; nextCursor?: string } };

const bytes = (text: string) => new TextEncoder().encode(text).length;
const hosts = hostTreatments();
const limitOf = (name: string) => treatmentFor(hosts, name).resultLimitBytes;
const CODEX = MCP_CLIENT_NAMES.codex[0];
const GEMINI = MCP_CLIENT_NAMES.gemini[0];
const COPILOT = MCP_CLIENT_NAMES.copilot[0];
const CLINE = MCP_CLIENT_NAMES.cline[0];

/** Each bridge of the test: the name its client gives, and the era it speaks. */
const CLIENTS: readonly { label: string; name: string; era: Era }[] = [
  { label: CODEX, name: CODEX, era: "legacy" },
  { label: GEMINI, name: GEMINI, era: "legacy" },
  // No `initialize` on this era: the name rides in every request's envelope.
  { label: `${GEMINI} (2026-07-28)`, name: GEMINI, era: "modern" },
  { label: `${COPILOT} (2026-07-28)`, name: COPILOT, era: "modern" },
  { label: CLINE, name: CLINE, era: "legacy" },
  { label: "some-other-host", name: "some-other-host", era: "legacy" },
  { label: "some-other-host (2026-07-28)", name: "some-other-host", era: "modern" },
];

/** Every page of ports with listeners: how many items each held, and its bytes as shown. */
async function walk(bridge: Bridge, extra: Data, name: string) {
  const form = shownForm(treatmentFor(hosts, name).resultShownAs);
  const pages: { items: number; bytes: number }[] = [];
  const ports: number[] = [];
  let afterCursor: string | undefined;
  do {
    const args = { listening: true, limit: 200, ...extra, ...(afterCursor ? { afterCursor } : {}) };
    const r = await call(bridge, "portreeve_ports_list", args);
    assert.equal(r.isError, false, r.text);
    const page = r.envelope.data as unknown as Page;
    assert.equal(page.page.itemCount, page.items.length, "a page says how many items it holds");
    // The same page again, as the host receives it, measured the way the host shows it.
    const raw = await bridge.client.callTool({ name: "portreeve_ports_list", arguments: args });
    assert.deepEqual(raw.structuredContent, r.envelope, "the same page");
    const shown = form.resultBytes(raw as unknown as Parameters<typeof form.resultBytes>[0]);
    if (form === shownForm("envelope")) assert.equal(shown, bytes(r.text));
    pages.push({ items: page.items.length, bytes: shown });
    ports.push(...page.items.map((item) => item.port as number));
    afterCursor = page.page.nextCursor;
  } while (afterCursor && pages.length < 80);
  return { pages, ports };
}

Deno.test("pages fit each host's result limit, and errors are marked its way, by its name", async () => {
  const env = await withSimulator();
  const workspace = await Deno.realPath(env.dir);
  const bridges = new Map<string, { bridge: Bridge; name: string }>();
  // The first host on 2026-07-28 probes the bridge's era; the others remember its answer.
  let discovered: DiscoverResult | undefined;
  for (const { label, name, era } of CLIENTS) {
    const bridge = await startBridge({
      socketPath: env.socketPath,
      clientName: name,
      era,
      discovered: era === "modern" ? discovered : undefined,
    });
    if (era === "modern") discovered ??= bridge.client.getDiscoverResult();
    bridges.set(label, { bridge, name });
  }
  // More than the largest limit's first page holds (34 compact ports for Gemini CLI), so that
  // every host walks several pages and each first page is full.
  const PORTS = 60;
  try {
    // Confirmed runs with listeners, seeded straight on the daemon (the pages are under test).
    const seed = seeder(env.socketPath);
    for (let i = 0; i < PORTS; i++) {
      const lease = await seed.post("/v1/leases/acquire", {
        claim: {
          project: "bound",
          workspaceRoot: workspace,
          component: `c${i}`,
          endpoint: "http",
          transport: "tcp",
        },
        allocation: { mode: "sticky", preferredPort: 31000 + i, replacementPolicy: "never" },
      }) as { leaseId: string; leaseToken: string; port: number };
      env.sim.control.addListener(lease.port, 60000 + i, { ppid: 1, command: "node" });
      await seed.post(`/v1/leases/${lease.leaseId}/confirm`, {
        leaseToken: lease.leaseToken,
        rootPid: 60000 + i,
      });
    }
    await seed.close();
    const expected = Array.from({ length: PORTS }, (_, i) => 31000 + i);
    const firstPage = new Map<string, number>();
    for (const [label, { bridge, name }] of bridges) {
      const limit = limitOf(name);
      const compact = await walk(bridge, {}, name);
      assert.deepEqual(compact.ports, expected, `${label}: every port once, in order`);
      // `detail: "full"` pages the same way on any limit: walked on the smallest and a larger.
      const full = label === CODEX || label === GEMINI
        ? await walk(bridge, { detail: "full" }, name)
        : undefined;
      if (full !== undefined) {
        assert.deepEqual(full.ports, expected, label);
        assert.ok(
          compact.pages[0].items > full.pages[0].items,
          `${label}: compact ${compact.pages[0].items} ports, full ${full.pages[0].items}`,
        );
      }
      for (const page of [...compact.pages, ...(full?.pages ?? [])]) {
        assert.ok(page.bytes <= limit, `${label}: a ${page.bytes}-byte page, limit ${limit}`);
      }
      // A full page is close to the limit, not far below it (the reserve around a page is
      // taken twice where the host shows it twice).
      const fullness = label === CLINE ? 0.6 : 0.75;
      assert.ok(
        compact.pages[0].bytes > limit * fullness,
        `${label}: ${compact.pages[0].bytes} bytes`,
      );
      firstPage.set(label, compact.pages[0].items);
      const failed = await bridge.client.callTool({ name: "portreeve_claim_get", arguments: {} });
      const flagged = treatmentFor(hosts, name).flagsToolErrors;
      assert.equal(failed.isError, flagged ? true : undefined, `${label}: an error's flag`);
      assert.deepEqual(failed.structuredContent, flagged ? undefined : { ok: false }, label);
    }
    // Gemini CLI gets its errors unflagged on either era; a host of no known name, flagged.
    assert.equal(treatmentFor(hosts, GEMINI).flagsToolErrors, false);
    assert.equal(treatmentFor(hosts, "some-other-host").flagsToolErrors, true);
    assert.equal(limitOf(GEMINI) > limitOf(CODEX), true);
    assert.ok(firstPage.get(GEMINI)! > 2 * firstPage.get(CODEX)!, JSON.stringify([...firstPage]));
    // A host of no known name gets the smallest limit any profile states.
    assert.equal(firstPage.get("some-other-host"), firstPage.get(CODEX));
    assert.equal(firstPage.get("some-other-host (2026-07-28)"), firstPage.get(CODEX));
    // Cline's pages hold fewer ports than a host of no known name's: it shows them twice.
    assert.ok(
      firstPage.get(CLINE)! < firstPage.get("some-other-host")!,
      JSON.stringify([...firstPage]),
    );
    // A host on the 2026-07-28 era gets its own limit, not the smallest.
    assert.equal(firstPage.get(`${GEMINI} (2026-07-28)`), firstPage.get(GEMINI));
    assert.ok(limitOf(COPILOT) > limitOf(CODEX));
    assert.ok(
      firstPage.get(`${COPILOT} (2026-07-28)`)! > firstPage.get(CODEX)!,
      JSON.stringify([...firstPage]),
    );
  } finally {
    for (const { bridge } of bridges.values()) await bridge.close();
    await env.cleanup();
  }
});
