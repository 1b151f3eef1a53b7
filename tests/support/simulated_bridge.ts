/**
 * One real `serve` process over a fresh simulator, with what the reliability scenarios set up
 * around it: a seeder for simulator state, a workspace and a stack root of their own, and
 * envelope helpers. `close` ends the bridge and removes all of it, whatever the test did, then
 * fails if any result the bridge wrote was `portreeve_internal` (a bridge bug).
 */
import assert from "node:assert/strict";
import { type BridgeOptions, withSimulator } from "../e2e/harness.ts";
import { type Seeder, seeder } from "../e2e/seed.ts";
import type { Simulator, SimulatorOptions } from "../../src/simulator/mod.ts";
import {
  assertNoBridgeBug,
  envelopeOf,
  type Peer,
  spawnPeer,
  type ToolEnvelope,
} from "./raw_peer.ts";

type Data = Record<string, unknown>;
type Envelope = ToolEnvelope;

/** A stack of two required endpoints and an optional one. */
export const THREE_COMPONENT_STACK = {
  version: 1,
  project: "three",
  components: {
    api: { endpoints: { http: {} } },
    web: { endpoints: { http: {} } },
    metrics: { endpoints: { http: { required: false } } },
  },
};

export interface SimulatedBridge {
  sim: Simulator;
  socketPath: string;
  seed: Seeder;
  workspace: string;
  stackRoot: string;
  peer: Peer;
  /** The envelope of one tool call. */
  call(tool: string, args?: Data): Promise<Envelope>;
  /** The data of a call that must succeed. */
  ok(tool: string, args?: Data): Promise<Data>;
  /** The error code of a call that must fail. */
  fails(tool: string, args: Data): Promise<string>;
  /** Applies `definition` in the stack root (as a seed), prepares it and begins its activation. */
  beginActivation(
    definition: Data,
  ): Promise<{ stackId: string; activationId: string; begun: Data }>;
  close(): Promise<void>;
}

export async function simulatedBridge(
  simulator: Partial<SimulatorOptions> = {},
  bridge: Omit<BridgeOptions, "socketPath"> = {},
): Promise<SimulatedBridge> {
  const env = await withSimulator(simulator);
  const seed = seeder(env.socketPath);
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-ws-" }));
  const stackRoot = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-stack-" }));
  const peer = spawnPeer({ ...bridge, socketPath: env.socketPath });
  const call = async (tool: string, args: Data = {}) => envelopeOf(await peer.tool(tool, args));
  const ok = async (tool: string, args: Data = {}) => {
    const e = await call(tool, args);
    assert.equal(e.ok, true, `${tool}: ${JSON.stringify(e.error)}`);
    return e.data!;
  };
  return {
    sim: env.sim,
    socketPath: env.socketPath,
    seed,
    workspace,
    stackRoot,
    peer,
    call,
    ok,
    async fails(tool, args) {
      const e = await call(tool, args);
      assert.equal(e.ok, false, `${tool} should fail`);
      return e.error!.code;
    },
    async beginActivation(definition) {
      const { stack } = await seed.post("/v1/stacks/apply", { stackRoot, definition }) as {
        stack: { id: string };
      };
      const prepared = await ok("portreeve_stack_prepare", { stackId: stack.id });
      const begun = await ok("portreeve_activation_begin", {
        generationId: (prepared.generation as { id: string }).id,
      });
      return { stackId: stack.id, activationId: (begun.activation as { id: string }).id, begun };
    },
    async close() {
      await peer.closeStdin();
      await peer.exited();
      seed.close();
      await env.cleanup();
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(stackRoot, { recursive: true });
      assertNoBridgeBug(peer);
    },
  };
}
