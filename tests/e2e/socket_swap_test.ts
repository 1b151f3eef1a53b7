/**
 * A socket swapped in the middle of a session, as another local user would swap it: the
 * private folder holding the daemon's socket is renamed aside (the daemon keeps running there)
 * and that user's own socket, served by a simulator that records every request, is put at the
 * name. The running bridge, confined as it ships, must send it nothing — no probe, no lease
 * token — answer with a clear retryable error, and keep the lease: once the folder is back, the
 * same handle works against the real daemon.
 */
import assert from "node:assert/strict";
import { call, ownStretch, startBridge } from "./harness.ts";
import { type Simulator, startSimulator } from "../../src/simulator/mod.ts";
import { userId } from "../support/launcher_rig.ts";

/** Another local user, as root can make one. */
const ATTACKER = 65534;

Deno.test("a socket swapped mid-session by another user gets nothing; the held lease survives", async () => {
  if (await userId() !== 0) {
    console.log("not root: another user's socket cannot be made here, so no swap is staged");
    return;
  }
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-swap-" }));
  const folder = `${dir}/private`;
  const aside = `${dir}/moved-aside`;
  const socketPath = `${folder}/portreeve.sock`;
  await Deno.mkdir(folder, { mode: 0o700 });
  const daemon = await startSimulator({
    socketPath,
    observeHost: false,
    settings: { automaticPortRanges: [ownStretch()] },
  });
  const bridge = await startBridge({ socketPath });
  let attacker: Simulator | undefined;
  try {
    const acquired = await call(bridge, "portreeve_lease_acquire", {
      claim: { project: "swap", workspaceRoot: dir, component: "api", endpoint: "http" },
    });
    assert.equal(acquired.isError, false, acquired.text);
    const credentialHandle = acquired.envelope.data!.credentialHandle;
    const abandon = { credentialHandle, reason: "startup-error" };

    await Deno.rename(folder, aside);
    await Deno.mkdir(folder, { mode: 0o755 });
    await Deno.chown(folder, ATTACKER, ATTACKER);
    attacker = await startSimulator({ socketPath, observeHost: false });
    await Deno.chown(socketPath, ATTACKER, ATTACKER);

    const calls: [string, Record<string, unknown>][] = [
      ["portreeve_lease_abandon", abandon],
      ["portreeve_ports_list", {}],
    ];
    for (const [tool, args] of calls) {
      const refused = await call(bridge, tool, args);
      assert.equal(refused.isError, true, `${tool}: ${refused.text}`);
      const error = refused.envelope.error!;
      assert.equal(error.code, "portreeve_unavailable", tool);
      assert.equal(error.details.reason, "socket_untrusted", tool);
      assert.equal(error.retryable, true, tool);
      assert.match(
        error.message,
        new RegExp(`^The socket at ${socketPath} belongs to user ${ATTACKER}, not to this`),
      );
      assert.match(error.nextStep, /held leases are kept/);
    }
    assert.deepEqual(attacker.requests, [], "the other user's socket was sent nothing at all");

    await attacker.close();
    attacker = undefined;
    await Deno.remove(folder, { recursive: true });
    await Deno.rename(aside, folder);
    const abandoned = await call(bridge, "portreeve_lease_abandon", abandon);
    assert.equal(
      abandoned.isError,
      false,
      `the kept lease, once the daemon is back: ${abandoned.text}`,
    );
    const sent = daemon.requests.filter((r) => r.path.endsWith("/abandon"));
    assert.equal(sent.length, 1, "the token went to the real daemon, once");
  } finally {
    await attacker?.close();
    await bridge.close();
    await daemon.close();
    await Deno.remove(dir, { recursive: true });
  }
});
