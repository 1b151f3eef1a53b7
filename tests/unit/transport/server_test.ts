/**
 * A call's time, through the real bridge server in both protocol eras, against a daemon that
 * serves one request at a time and is busy with another agent's change: a host that asked for
 * progress hears every 5 s that the call is queued behind other agents' changes, until the
 * daemon answers with data; the call's bound (`--daemon-wait-ms`) ends a wait as a timeout that
 * says so. The bound's and the notes' timers are the test's own: nothing waits on the clock.
 */
import { CredentialFragments } from "../../../src/custody/fragments.ts";
import assert from "node:assert/strict";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { HostClient } from "../../support/host_client.ts";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createBridge } from "../../../src/bridge/mod.ts";
import { CALL_TIMING, type Era } from "../../../src/transport/server.ts";
import { envelopeOf, type ToolResult } from "../../support/raw_peer.ts";
import { post } from "../../../src/daemon/routes.ts";
import { coordinates } from "../../../src/daemon/effects.ts";
import { daemonRig } from "../../support/daemon_rig.ts";
import { ManualTimers } from "../../support/manual_timers.ts";
import { Watched } from "../../support/watched.ts";
import { z } from "zod";

const BOUND_MS = 600_000;
const EVERY_MS = CALL_TIMING.progressEveryMs;
const ANOTHER_AGENTS_CHANGE = post("/v1/config", z.looseObject({}), coordinates("a change"));

interface Note {
  progress: number;
  message?: string;
}

/** A bridge on a busy paced daemon, and one MCP session of `era` to it. */
async function busyDaemonSession(era: Era) {
  const rig = await daemonRig({}, { paced: true });
  const timers = new ManualTimers();
  const bridge = createBridge({
    socket: { path: rig.socketPath, source: "flag" },
    toolset: "full",
    fragments: new CredentialFragments(),
    timing: { daemonWaitMs: BOUND_MS, timers },
  });
  const shutdown = new AbortController();
  const [near, far] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(({ era }) => bridge.server(shutdown.signal, era), {
    legacy: "serve",
    transport: far,
  });
  const client = new HostClient(
    { name: "server-test", version: "0" },
    { versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" } },
  );
  await client.connect(near);
  // Another agent's change: the daemon holds it until the test lets it finish.
  const other = rig.client.request(ANOTHER_AGENTS_CHANGE, {
    body: { updates: { leaseTtlMilliseconds: 30_000 } },
  });
  await rig.holding(1);
  const notes: Note[] = [];
  const heard = new Watched();
  /**
   * A ports_list that waits behind that change, with progress asked for unless `quiet`; once
   * its first request (the new bridge's health probe) is in the daemon's queue.
   */
  const call = async (quiet = false) => {
    const from = rig.sim.requests.length;
    const answer = client.callTool({ name: "portreeve_ports_list", arguments: {} }, {
      onprogress: quiet ? undefined : (note) => {
        notes.push(note);
        heard.changed();
      },
    });
    await rig.sim.arrived(() => true, from);
    return { answer };
  };
  return {
    rig,
    timers,
    notes,
    call,
    heard: (count: number) => heard.when(() => notes.length >= count),
    async close() {
      rig.waits.splice(0).forEach((release) => release());
      await other.catch(() => {});
      shutdown.abort();
      await client.close();
      await handle.close();
      await bridge.close();
      await rig.done();
    },
  };
}

for (const era of ["legacy", "modern"] as const) {
  Deno.test(`${era} era: a read queued behind another agent's change hears progress, then gets data`, async () => {
    const s = await busyDaemonSession(era);
    try {
      const { answer: read } = await s.call();
      const scheduled = () => s.timers.pending.map((timer) => timer.ms).sort((a, b) => a - b);
      assert.deepEqual(scheduled(), [EVERY_MS, BOUND_MS], "the call's bound, and its progress");
      for (let beat = 1; beat <= 3; beat++) {
        (await s.timers.next(EVERY_MS)).fire();
        await s.heard(beat);
      }
      assert.deepEqual(s.notes.map((note) => note.progress), [1, 2, 3], "progress only grows");
      assert.match(s.notes[0].message!, /Still waiting for the PortReeve daemon after 5 s/);
      assert.match(s.notes[2].message!, /queued behind other agents' changes on the shared daemon/);
      s.rig.waits.shift()!(); // the other agent's change is done: the read's turn
      const result = envelopeOf(await read as ToolResult);
      assert.equal(result.ok, true, JSON.stringify(result.error));
      assert.ok(
        Array.isArray((result.data as { items: unknown[] }).items),
        "data, not unavailable",
      );
      assert.deepEqual(
        s.timers.pending.filter((timer) => timer.ms === EVERY_MS),
        [],
        "no progress after the answer",
      );
    } finally {
      await s.close();
    }
  });

  Deno.test(`${era} era: the call's bound ends the wait with a timeout naming the bound`, async () => {
    const s = await busyDaemonSession(era);
    try {
      const { answer: read } = await s.call();
      (await s.timers.next(BOUND_MS)).fire();
      const result = envelopeOf(await read as ToolResult);
      assert.equal(result.ok, false);
      assert.equal(result.error?.code, "portreeve_unavailable");
      assert.equal(result.error?.details?.reason, "timeout");
      assert.match(result.error!.message, /did not answer within 600 s \(this bridge's bound/);
      assert.deepEqual(s.timers.pending, [], "neither the bound nor progress outlives the call");
    } finally {
      await s.close();
    }
  });
}

Deno.test("a call without a progress token gets no progress notes, only its bound", async () => {
  const s = await busyDaemonSession("legacy");
  try {
    const { answer: read } = await s.call(true);
    assert.deepEqual(s.timers.pending.map((timer) => timer.ms), [BOUND_MS]);
    s.rig.waits.shift()!();
    assert.equal(envelopeOf(await read as ToolResult).ok, true);
  } finally {
    await s.close();
  }
});
