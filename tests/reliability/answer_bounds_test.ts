/**
 * Every answer bounded, over real stdio: the real `serve` process against a hostile daemon on
 * a real Unix socket that answers with megabyte error messages and details, a claim whose
 * workspaceRoot is 600 KB, a history event that carries it, a port with thousands of
 * listeners, an unknown error code a megabyte long, and an HTTP 431. Each answer's frame is
 * measured in bytes as it left the process: errors stay small (message and details cut once,
 * with a marker), every page stays within what the host shows whole (a host of no known name:
 * the smallest limit) with the large record alone and cut, saying which tool reads it whole,
 * and a single record stays within that limit too.
 */
import { claimRecord, testId } from "../support/records.ts";
import assert from "node:assert/strict";
import { envelope, startFakeDaemon } from "./fake_daemon.ts";
import { envelopeOf, type Peer, spawnPeer, type ToolResult } from "../support/raw_peer.ts";
import { DEFAULT_FIT, SMALLEST_RESULT_BYTES } from "../../src/results/pagination.ts";
import { normaliseMarkdown, withSection, writeFormatted } from "../../scripts/doc_blocks.ts";
import type { Json } from "../../src/shared/json.ts";

const MB = 1024 * 1024;
const ROOT = "/w/" + "r".repeat(600_000);
const uuid = testId;
const AT = "2026-12-01T10:00:00.000Z";

function claim(n: number, workspaceRoot: string): Json {
  return claimRecord(n, { workspaceRoot });
}

const CLAIMS = [claim(1, "/w/a"), claim(2, ROOT), claim(3, "/w/c")];

const LISTENERS = Array.from({ length: 3_000 }, (_, i) => ({
  pid: 10_000 + i,
  port: 7,
  command: `worker ${i}`,
  names: ["127.0.0.1:7"],
  process: { pid: 10_000 + i, ppid: 1, command: `worker ${i}`, startedAt: AT },
  ownership: { verified: false, reason: "unclaimed", lineage: [10_000 + i] },
}));

const PORT_7 = {
  port: 7,
  transport: "tcp",
  classification: "unclaimed",
  claim: null,
  lease: null,
  run: null,
  docker: null,
  listeners: LISTENERS,
};

const HISTORY = {
  items: [{
    id: uuid(9),
    eventType: "claim.created",
    entityType: "claim",
    entityId: uuid(2),
    payload: { identity: claim(2, ROOT).identity },
    origin: null,
    occurredAt: AT,
  }],
  page: { nextCursor: null },
};

function json(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": "application/json" } });
}

function daemonError(code: string, message: string, details: Json): Response {
  return json(
    JSON.stringify({
      protocolVersion: 1,
      requestId: crypto.randomUUID(),
      error: { code, message, retryable: false, details },
    }),
    409,
  );
}

/**
 * The most bytes a frame carrying `data` characters of data can take: structuredContent holds
 * it once, the text block again with every quote escaped (at worst twice its length), and a
 * little JSON-RPC around it.
 */
function frameBound(data: number): number {
  return 3 * (data + 1_100) + 500;
}

const PAGE = DEFAULT_FIT.budget;

/** The largest frame seen per case, in bytes: written into docs/limits.md (see below). */
const frames = new Map<string, number>();

/** A tool call and the byte length of the stdout line that answered it, noted as `what`. */
async function framed(peer: Peer, what: string, name: string, args: Json = {}) {
  const id = await peer.post("tools/call", { name, arguments: args });
  const message = await peer.response(id, 60_000);
  const result = message.result as ToolResult;
  const bytes = peer.responseBytes(id)!;
  frames.set(what, Math.max(frames.get(what) ?? 0, bytes));
  return { result, envelope: envelopeOf(result), bytes };
}

/**
 * The measured frames as docs/limits.md shows them. The daemon's answers are fixed, so the
 * sizes are too: the test fails when the document differs, and RELIABILITY_UPDATE_DOCS=1
 * rewrites it.
 */
async function checkDocument(): Promise<void> {
  const rows = [...frames].map(([what, bytes]) => `| ${what} | ${bytes.toLocaleString("en-US")} |`);
  const url = new URL("../../docs/limits.md", import.meta.url);
  const doc = await Deno.readTextFile(url);
  const measured = withSection(doc, "measured-frames", [
    "| The daemon sent | Largest frame (bytes) |",
    "| --- | --- |",
    ...rows,
  ]);
  if (Deno.env.get("RELIABILITY_UPDATE_DOCS") === "1") {
    await writeFormatted(url, measured);
    return;
  }
  assert.equal(
    normaliseMarkdown(doc),
    normaliseMarkdown(measured),
    "docs/limits.md's measured frames differ: run with RELIABILITY_UPDATE_DOCS=1",
  );
}

Deno.test("answers stay bounded whatever the daemon sends", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-bounds-" });
  const socketPath = `${dir}/portreeve.sock`;
  const fake = await startFakeDaemon(socketPath, (request) => {
    const url = new URL(request.url);
    switch (url.pathname) {
      case "/v1/leases/acquire":
        return daemonError("conflict", "m".repeat(1.5 * MB), {
          reason: "d".repeat(1.5 * MB),
          ...Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])),
        });
      case "/v1/config":
        return daemonError("c".repeat(MB), "an unknown code", {});
      case "/v1/claims":
        return json(envelope(CLAIMS));
      case `/v1/claims/${uuid(2)}`:
        return json(envelope(CLAIMS[1]));
      case "/v1/history":
        return json(envelope(HISTORY));
      case "/v1/ports/7":
        return json(envelope(PORT_7));
      case "/v1/ports":
        // A daemon whose header limit is smaller than any input's bound.
        if (url.searchParams.has("project")) return new Response("", { status: 431 });
        return json(envelope([PORT_7]));
    }
    return json("{}", 404);
  });
  const peer = spawnPeer({ socketPath });
  try {
    await peer.initialize();

    await t.step("a 1.5 MB error message and details: a small frame, cut once", async () => {
      const { envelope: env, bytes } = await framed(
        peer,
        "a 1.5 MB error message and 1.5 MB of details (lease_acquire)",
        "portreeve_lease_acquire",
        {
          claim: { project: "p", workspaceRoot: "/w", component: "web" },
        },
      );
      const error = env.error!;
      assert.equal(error.code, "portreeve_conflict");
      assert.ok(bytes < 30_000, `${bytes}-byte frame`);
      assert.match(error.message, /^m+…\[cut from 1,572,864 characters\]/);
      assert.equal(error.message.match(/cut from/g)?.length, 1, "cut once");
      const details = error.details as Json;
      assert.match(String(details.reason), /…\[cut from 1,572,864 characters\]$/);
      assert.match(String(details.truncated), /left out/);
      assert.equal(details.requestId, undefined, "the daemon's request id is left out of results");
    });

    await t.step("an unknown error code a megabyte long: invalid_response, small", async () => {
      const { envelope: env, bytes } = await framed(
        peer,
        "an unknown error code 1 MB long (settings_get)",
        "portreeve_settings_get",
      );
      assert.equal(env.error?.code, "portreeve_invalid_response");
      assert.ok(bytes < 10_000, `${bytes}-byte frame`);
    });

    await t.step(
      "a 600 KB workspaceRoot: every page within the bound, the record alone",
      async () => {
        const pages: { ids: string[]; items: number; bytes: number; root?: string }[] = [];
        let afterCursor: string | undefined;
        do {
          const { envelope: env, bytes } = await framed(
            peer,
            "claims with a 600 KB workspaceRoot, each page (claims_list)",
            "portreeve_claims_list",
            {
              limit: 200,
              ...(afterCursor ? { afterCursor } : {}),
            },
          );
          const data = env.data as { items: Json[]; page: { nextCursor?: string } };
          const big = data.items.find((c) => c.id === uuid(2));
          pages.push({
            ids: data.items.map((c) => String(c.id)),
            items: JSON.stringify(data.items).length,
            bytes,
            root: big ? String((big.identity as Json).workspaceRoot) : undefined,
          });
          afterCursor = data.page.nextCursor;
        } while (afterCursor && pages.length < 10);
        // In the daemon's order: the large record alone, between the others.
        assert.deepEqual(pages.map((p) => p.ids), [[uuid(1)], [uuid(2)], [uuid(3)]]);
        for (const page of pages) {
          assert.ok(page.items <= PAGE, `${page.items} characters of records`);
          assert.ok(page.bytes < frameBound(PAGE), `${page.bytes}-byte frame`);
        }
        assert.match(
          pages[1].root!,
          /^\/w\/r+…\[cut from 600,003 characters; read the whole record with portreeve_claim_get \(id\)\]$/,
        );
      },
    );

    await t.step("the same root in a history event: one page, within the bound", async () => {
      // Whole (`detail: "full"`), the event's payload carries the root, cut, and says where
      // to read it; by default a claim event's payload is left out, and the result says so.
      const what = "a history event carrying it (history_list)";
      for (const detail of ["full", undefined]) {
        const { envelope: env, bytes } = await framed(
          peer,
          what,
          "portreeve_history_list",
          detail === undefined ? {} : { detail },
        );
        const data = env.data as { items: Json[]; notShown?: string };
        assert.equal(data.items.length, 1);
        assert.ok(JSON.stringify(data.items).length <= PAGE);
        assert.ok(bytes < frameBound(PAGE), `${bytes}-byte frame`);
        if (detail === "full") {
          assert.match(
            JSON.stringify(data.items),
            /read the whole record with portreeve_claim_get \(id\)/,
          );
        } else {
          assert.equal(data.items[0].payload, undefined);
          assert.match(String(data.notShown), /items\[\]\.payload .*\(detail: full\)/);
        }
      }
    });

    await t.step("the record itself: within the bound for one result, and says so", async () => {
      const { envelope: env, bytes } = await framed(
        peer,
        "the claim itself (claim_get)",
        "portreeve_claim_get",
        { id: uuid(2) },
      );
      const data = env.data as Json;
      assert.ok(JSON.stringify(data).length <= SMALLEST_RESULT_BYTES);
      assert.ok(bytes < frameBound(SMALLEST_RESULT_BYTES), `${bytes}-byte frame`);
      const limit = SMALLEST_RESULT_BYTES.toLocaleString("en-US");
      assert.ok(
        String((data.identity as Json).workspaceRoot).endsWith(
          `…[cut from 600,003 characters; this host shows a result of at most ${limit} bytes whole]`,
        ),
        String((data.identity as Json).workspaceRoot).slice(-120),
      );
    });

    await t.step(
      "3,000 listeners on one port: a page and a single result, both bounded",
      async () => {
        const list = await framed(
          peer,
          "3,000 listeners on a port, a page (ports_list, detail full)",
          "portreeve_ports_list",
          { detail: "full" },
        );
        const [entry] = (list.envelope.data as { items: Json[] }).items;
        assert.ok(JSON.stringify(entry).length <= PAGE);
        assert.match(
          String(entry.truncated),
          /left out; read the whole record with portreeve_port_inspect/,
        );
        const one = await framed(
          peer,
          "the same port (port_inspect, detail full)",
          "portreeve_port_inspect",
          { port: 7, detail: "full" },
        );
        const data = one.envelope.data as Json;
        assert.ok(JSON.stringify(data).length <= SMALLEST_RESULT_BYTES);
        assert.ok((data.listeners as unknown[]).length < 3_000);
        assert.ok(one.bytes < frameBound(SMALLEST_RESULT_BYTES), `${one.bytes}-byte frame`);
      },
    );

    await t.step("HTTP 431 from the daemon: invalid_input naming the field", async () => {
      const { envelope: env } = await framed(
        peer,
        "HTTP 431 to a filter (ports_list)",
        "portreeve_ports_list",
        { project: "web" },
      );
      assert.equal(env.error?.code, "portreeve_invalid_input");
      // The message names the field, so the details do not again.
      assert.match(env.error!.message, /\bproject\b/);
      assert.match(env.error!.message, /HTTP 431/);
    });

    assert.deepEqual(peer.violations, [], "stdout carried only well-formed frames");
    console.log(
      `largest frames (bytes): ${[...frames].map(([what, n]) => `${what}: ${n}`).join("; ")}`,
    );
    await checkDocument();
  } finally {
    await peer.closeStdin();
    await peer.exited();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});
