/**
 * Opt-in: the end-to-end scenarios against a real PortReeve daemon. Set PORTREEVE_LIVE_SOCKET
 * to its socket. Read-only tools, plus one lease on a throwaway project that is confirmed by
 * a real listener, released, and its claim deleted through preview/execute afterwards.
 */
import assert from "node:assert/strict";
import { type Bridge, call, type Era, startBridge } from "../e2e/harness.ts";
import { expandResult } from "../support/expand.ts";

const socketPath = Deno.env.get("PORTREEVE_LIVE_SOCKET");
const SKIP =
  "skipped: PORTREEVE_LIVE_SOCKET is not set (point it at a running PortReeve daemon's socket to run the live suite)";

if (!socketPath) {
  console.log(`live suite ${SKIP}`);
  Deno.test({ name: `live suite (${SKIP})`, ignore: true, fn() {} });
} else {
  for (const era of ["legacy", "auto", "modern"] as Era[]) {
    Deno.test(`live (${era}): diagnostics, health and every read-only listing`, async () => {
      const bridge = await startBridge({ socketPath, era, serveArgs: ["--label", "live-suite"] });
      try {
        const diag = await ok(bridge, "portreeve_diagnostics");
        assert.equal(
          (diag.daemon as { compatible: boolean }).compatible,
          true,
          JSON.stringify(diag),
        );
        await ok(bridge, "portreeve_compatibility");
        await ok(bridge, "portreeve_health");
        await ok(bridge, "portreeve_settings_get");
        for (
          const tool of [
            "ports_list",
            "claims_list",
            "stacks_list",
            "generations_list",
            "activations_list",
            "history_list",
          ]
        ) {
          const page = await ok(bridge, `portreeve_${tool}`, { limit: 2 }) as {
            items: unknown[];
            page: { nextCursor?: string };
          };
          if (page.page.nextCursor) {
            await ok(bridge, `portreeve_${tool}`, { limit: 2, afterCursor: page.page.nextCursor });
          }
        }
        const missing = await call(bridge, "portreeve_claim_get", { id: crypto.randomUUID() });
        assert.equal(missing.envelope.error?.code, "portreeve_not_found");
      } finally {
        await bridge.close();
      }
    });
  }

  Deno.test("live: compact results expand to the records detail full returns", async () => {
    const bridge = await startBridge({ socketPath, serveArgs: ["--label", "live-suite"] });
    try {
      // Listings that do not change between two calls (ports carry fresh host evidence).
      for (const tool of ["stacks_list", "activations_list", "launcher_operations_list"]) {
        const name = `portreeve_${tool}`;
        const args = tool === "launcher_operations_list" ? await firstStack(bridge) : { limit: 20 };
        if (!args) continue;
        const compact = await ok(bridge, name, args);
        const full = await ok(bridge, name, { ...args, detail: "full" });
        assert.deepEqual(expandResult(name, compact), full, name);
      }
    } finally {
      await bridge.close();
    }
  });

  Deno.test("live: a throwaway lease confirmed by a real listener, released and cleaned up", async () => {
    const workspace = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "portreeve-mcp-live-" }),
    );
    const project = `portreeve-mcp-live-${crypto.randomUUID().slice(0, 8)}`;
    // `auto`: this client cannot ask, and the suite deletes its own throwaway claim.
    const bridge = await startBridge({
      socketPath,
      serveArgs: ["--label", "live-suite", "--approval", "auto"],
    });
    let claimId: string | undefined;
    try {
      const lease = await ok(bridge, "portreeve_lease_acquire", {
        claim: { project, workspaceRoot: workspace, component: "web", endpoint: "http" },
        allocation: { mode: "ephemeral" },
      });
      claimId = lease.claimId as string;
      const listener = Deno.listen({ hostname: "127.0.0.1", port: lease.port as number });
      try {
        const run = await ok(bridge, "portreeve_lease_confirm", {
          credentialHandle: lease.credentialHandle,
          rootPid: Deno.pid,
        });
        listener.close();
        await ok(bridge, "portreeve_run_release", { runId: run.runId });
      } finally {
        try {
          listener.close();
        } catch { /* closed */ }
      }
    } finally {
      if (claimId) {
        const preview = await call(bridge, "portreeve_claim_delete_preview", { claimId });
        if (!preview.isError) {
          await call(bridge, "portreeve_claim_delete_execute", {
            claimId,
            receiptId: preview.envelope.data!.receiptId,
          });
        }
      }
      await bridge.close();
      await Deno.remove(workspace, { recursive: true });
    }
  });
}

async function ok(bridge: Bridge, tool: string, args: Record<string, unknown> = {}) {
  const r = await call(bridge, tool, args);
  assert.equal(r.isError, false, `${tool}: ${r.text}`);
  return r.envelope.data!;
}

async function firstStack(bridge: Bridge): Promise<Record<string, unknown> | undefined> {
  const stacks = await ok(bridge, "portreeve_stacks_list", { limit: 1 });
  const first = (stacks.items as { id: string }[])[0];
  return first ? { stackId: first.id, limit: 20 } : undefined;
}
