/**
 * The real daemon client against the simulator on a real Unix socket in a temporary folder:
 * what the client's tests set up, with `paced` for a daemon that serves one request at a time
 * and finishes each change only when the test says so. Each client's deadlines are timers the
 * test fires (`timers`, unless a test passes its own), never the real clock's.
 */
import { DaemonClient, type DaemonClientOptions } from "../../src/daemon/client.ts";
import { ManualTimers } from "./manual_timers.ts";
import { type SimulatorOptions, startSimulator } from "../../src/simulator/mod.ts";
import { ApprovalGate } from "../../src/daemon/gate.ts";
import { Watched } from "./watched.ts";
import assert from "node:assert/strict";
import { BridgeError } from "../../src/shared/errors.ts";

/** A client's options; its gate is a new one of its own unless given (nothing mints for it). */
type ClientOptions = Omit<DaemonClientOptions, "socketPath" | "runId" | "gate"> & {
  gate?: ApprovalGate;
};

export interface DaemonRig {
  sim: Awaited<ReturnType<typeof startSimulator>>;
  socketPath: string;
  /** The rig's first client. */
  client: DaemonClient;
  /** Another client of the same daemon (closed by `done`). */
  another(options?: ClientOptions): DaemonClient;
  /** Releases of the changes the paced daemon holds, oldest first (empty unless `paced`). */
  waits: (() => void)[];
  /** Resolves once the paced daemon holds at least `count` changes. */
  holding(count: number): Promise<void>;
  done(): Promise<void>;
}

/** `options` with deadline timers only the test fires, unless they bring their own. */
function onTestTimers(options: ClientOptions = {}): ClientOptions {
  return { timers: new ManualTimers(), ...options };
}

export async function daemonRig(
  client: ClientOptions = {},
  simulator: Partial<SimulatorOptions> & { paced?: boolean } = {},
): Promise<DaemonRig> {
  const dir = await Deno.makeTempDir();
  const socketPath = `${dir}/d.sock`;
  const waits: (() => void)[] = [];
  const held = new Watched();
  const { paced, ...options } = simulator;
  const pacing = paced
    ? {
      latencyMs: 1_000,
      serial: true,
      sleep: () =>
        new Promise<void>((release) => {
          waits.push(release);
          held.changed();
        }),
    }
    : {};
  const sim = await startSimulator({ socketPath, observeHost: false, ...pacing, ...options });
  const clients: DaemonClient[] = [];
  const another = (more: ClientOptions = {}) => {
    const made = new DaemonClient({
      socketPath,
      runId: crypto.randomUUID(),
      gate: new ApprovalGate(),
      ...more,
    });
    clients.push(made);
    return made;
  };
  return {
    sim,
    socketPath,
    client: another(onTestTimers(client)),
    another: (more) => another(onTestTimers(more)),
    waits,
    holding: (count) => held.when(() => waits.length >= count),
    async done() {
      for (const made of clients) made.close();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The `BridgeError` that `promise` rejects with (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<BridgeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof BridgeError, String(error));
    return error;
  }
  throw new Error("expected a BridgeError");
}
