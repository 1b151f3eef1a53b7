/**
 * Shared load for the flood and soak tests: seeded claims (so list answers are large), a
 * mixed call generator whose every answer can be checked against its own request, and a
 * pipelined runner that keeps a window of calls in flight over one bridge.
 */
import assert from "node:assert/strict";
import type { BridgeOptions } from "../e2e/harness.ts";
import { seedClaim, type Seeder } from "../e2e/seed.ts";
import { envelopeOf, frame, idKey, type Peer, type ToolResult } from "../support/raw_peer.ts";
import { simulatedBridge } from "../support/simulated_bridge.ts";

export interface Seeded {
  claims: { id: string; port: number }[];
}

/**
 * Runs `body` against one initialized bridge over a simulator holding `claims` seeded claims.
 * When `body` returns, the bridge is closed and must exit 0; everything is cleaned up either way.
 */
export async function withLoadedBridge(
  claims: number,
  body: (peer: Peer, seeded: Seeded) => Promise<void>,
  options: Omit<BridgeOptions, "socketPath"> = {},
): Promise<void> {
  const rig = await simulatedBridge({}, options);
  const { peer } = rig;
  try {
    const seeded = await seedClaims(rig.seed, rig.workspace, claims);
    await peer.initialize();
    await body(peer, seeded);
    await peer.closeStdin();
    assert.equal((await peer.exited()).code, 0);
  } finally {
    await rig.close();
  }
}

export async function seedClaims(seed: Seeder, workspace: string, n: number): Promise<Seeded> {
  const claims = [];
  for (let i = 0; i < n; i++) {
    const lease = await seedClaim(seed, "load", workspace, `c${i}`);
    claims.push({ id: lease.claimId as string, port: lease.port as number });
  }
  return { claims };
}

export interface Call {
  name: string;
  args: Record<string, unknown>;
  /** Checks that this answer belongs to this call. */
  check(data: Record<string, unknown>): void;
}

/** The i-th call of a deterministic mix of read tools. */
export function mixedCall(i: number, seeded: Seeded): Call {
  const claim = seeded.claims[i % seeded.claims.length];
  const total = seeded.claims.length;
  switch (i % 10) {
    case 0:
      return {
        name: "portreeve_health",
        args: {},
        check: (d) => assert.equal(typeof d.pid, "number"),
      };
    case 1:
      return {
        name: "portreeve_ports_list",
        args: { limit: 200 },
        check: (d) => assert.ok(Array.isArray(d.items)),
      };
    case 2:
      return {
        name: "portreeve_settings_get",
        args: {},
        check: (d) => assert.equal(typeof d.leaseTtlMilliseconds, "number"),
      };
    case 3:
      return {
        name: "portreeve_diagnostics",
        args: {},
        check: (d) => assert.equal((d.daemon as { available: boolean }).available, true),
      };
    case 4:
      return {
        name: "portreeve_claims_list",
        args: { limit: 200 },
        // A page stops at its size bound; the cursor then says there is more.
        check: (d) => {
          const shown = (d.items as unknown[]).length;
          const more = (d.page as { nextCursor?: string }).nextCursor !== undefined;
          assert.ok(
            shown === total || (shown > 0 && shown < total && more),
            `${shown} of ${total}`,
          );
        },
      };
    case 5:
      return {
        name: "portreeve_claim_get",
        args: { id: claim.id },
        check: (d) => assert.equal(d.id, claim.id),
      };
    case 6:
      return {
        name: "portreeve_port_inspect",
        args: { port: claim.port },
        check: (d) => assert.equal(d.port, claim.port),
      };
    case 7:
      return {
        name: "portreeve_compatibility",
        args: {},
        check: (d) => assert.equal(d.compatible, true),
      };
    case 8:
      return {
        name: "portreeve_claims_list",
        args: { limit: 1, component: `c${i % total}` },
        check: (d) =>
          assert.equal(
            (d.items as { identity: { component: string } }[])[0].identity.component,
            `c${i % total}`,
          ),
      };
    default:
      return {
        name: "portreeve_stacks_list",
        args: {},
        check: (d) => assert.ok(Array.isArray(d.items)),
      };
  }
}

export function checkAnswer(call: Call, result: ToolResult): void {
  const env = envelopeOf(result);
  assert.equal(env.ok, true, `${call.name}: ${JSON.stringify(env.error)}`);
  call.check(env.data!);
}

let nextId = 1;

/**
 * Runs calls `from`..`to-1` with up to `window` in flight, checking each answer against its
 * own request (so a mixed-up id fails the check) and that each id is answered exactly once.
 */
export async function pipelined(
  peer: Peer,
  seeded: Seeded,
  from: number,
  to: number,
  window: number,
): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const call = mixedCall(next++, seeded);
      const id = nextId++;
      await peer.send(frame({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: call.name, arguments: call.args },
      }));
      const m = await peer.response(id, 30_000);
      assert.ok("result" in m, `${call.name}: ${JSON.stringify(m.error)}`);
      checkAnswer(call, m.result as ToolResult);
      peer.byId.delete(idKey(id)); // keep the peer's index small over 10,000 calls
    }
  };
  await Promise.all(Array.from({ length: window }, worker));
}

export function mib(kib: number): string {
  return `${(kib / 1024).toFixed(1)} MiB`;
}

/** Open sockets of `pid` (the bridge has no socket but its daemon connections). */
export async function socketCount(pid: number): Promise<number> {
  // Through `ls`: Deno wants --allow-all to read another process's /proc entries.
  const out = await new Deno.Command("ls", {
    args: ["-l", `/proc/${pid}/fd`],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.includes("socket:"))
    .length;
}

/** Samples `socketCount` until stopped; `peak` is the most seen at once. */
export function watchSockets(pid: number, everyMs = 100): { stop(): Promise<number> } {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, await socketCount(pid));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}
