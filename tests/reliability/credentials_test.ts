/**
 * Credentials. A full scenario over the raw peer with `--log-level debug` and a
 * 1.5 s lease TTL (so renewals carry tokens all along): standalone leases (confirm, abandon,
 * release), a two-endpoint activation (extend, confirm, resolve, reconcile, end), a launcher
 * operation (renew, complete), replays and failures. Then every byte the bridge wrote to
 * stdout and stderr is scanned for every raw token and credential the simulator issued — whole,
 * and their first and last 16 characters. Zero matches.
 *
 * Then the same against a HOSTILE simulator, which quotes every token it is sent (whole, split
 * by spaces and by a newline, and spread over fields named in the token's own alphabet) in
 * error messages and `details` and echoes it inside every record it returns: every
 * credential-bearing tool, succeeding and failing, and renewals that succeed and fail. Every
 * 12-character window of every secret is looked for in stdout and stderr, also with everything
 * outside the token alphabet removed, and in the string values of each frame read in order
 * whatever the field names (so split copies count).
 */
import assert from "node:assert/strict";
import { TWO_COMPONENT_STACK } from "../e2e/seed.ts";
import { eventually, sleep } from "../support/timed.ts";
import { simulatedBridge, THREE_COMPONENT_STACK } from "../support/simulated_bridge.ts";
import { REAL_TIME } from "../support/daemon_clock.ts";
import type { Simulator } from "../../src/simulator/mod.ts";
import { reportFigure } from "../support/reliability_figures.ts";

type Data = Record<string, unknown>;

/** Raw secrets: every leaseToken / credential the bridge sent the daemon, and any in its state. */
function issuedSecrets(sim: Simulator): Set<string> {
  const secrets = new Set<string>();
  const visit = (value: unknown, depth = 0) => {
    if (depth > 20) return;
    if (Array.isArray(value)) value.forEach((v) => visit(v, depth + 1));
    else if (value instanceof Map) [...value.values()].forEach((v) => visit(v, depth + 1));
    else if (value && typeof value === "object") {
      for (const [key, v] of Object.entries(value)) {
        if (
          /^(leaseToken|credential|token|operationCredential)$/.test(key) && typeof v === "string"
        ) {
          secrets.add(v);
        } else visit(v, depth + 1);
      }
    }
  };
  for (const request of sim.requests) visit(request.body);
  visit(sim.control.state);
  return secrets;
}

Deno.test("credentials: no raw token or credential ever reaches stdout or stderr", async (t) => {
  const rig = await simulatedBridge({
    ...REAL_TIME, // the renewals carrying tokens all along run on real time
    observeHost: true,
    settings: { leaseTtlMilliseconds: 1_500 },
  }, { serveArgs: ["--log-level", "debug", "--label", "credentials"] });
  const { sim, workspace, peer, ok, fails } = rig;
  const listeners: Deno.Listener[] = [];
  try {
    await peer.initialize();
    let stackId = "";
    await t.step(
      "a standalone lease: renewals, confirm with a real listener, replay, release",
      async () => {
        // Standalone lease: acquire, renewals, confirm with a real listener, replay, release.
        const lease = await ok("portreeve_lease_acquire", {
          claim: { project: "cred", workspaceRoot: workspace, component: "api" },
        });
        await sleep(1_200); // renewals with the raw token
        listeners.push(Deno.listen({ hostname: "127.0.0.1", port: lease.port as number }));
        const confirmed = await ok("portreeve_lease_confirm", {
          credentialHandle: lease.credentialHandle,
          rootPid: Deno.pid,
        });
        await ok("portreeve_lease_confirm", {
          credentialHandle: lease.credentialHandle,
          rootPid: Deno.pid,
        });
        await fails("portreeve_lease_abandon", {
          credentialHandle: lease.credentialHandle,
          reason: "startup-error",
        });
        await ok("portreeve_run_release", { runId: confirmed.runId });
      },
    );

    await t.step("a second lease, abandoned", async () => {
      // A second lease, abandoned.
      const second = await ok("portreeve_lease_acquire", {
        claim: { project: "cred", workspaceRoot: workspace, component: "worker" },
      });
      await ok("portreeve_lease_abandon", {
        credentialHandle: second.credentialHandle,
        reason: "client-cancelled",
      });
      await fails("portreeve_lease_confirm", { credentialHandle: "Z".repeat(43), rootPid: 1 });
    });

    await t.step(
      "an activation of a two-component stack: extend, confirm, resolve, reconcile, end",
      async () => {
        // Activation of a two-component stack.
        const started = await rig.beginActivation(TWO_COMPONENT_STACK);
        const { begun, activationId } = started;
        stackId = started.stackId;
        await ok("portreeve_activation_custody_extend", { activationId, custodyMinutes: 20 });
        await sleep(1_200);
        const leases = begun.leases as { port: number; credentialHandle: string }[];
        for (const l of leases) {
          listeners.push(Deno.listen({ hostname: "127.0.0.1", port: l.port }));
        }
        for (const l of leases) {
          await ok("portreeve_activation_confirm_endpoint", {
            activationId,
            credentialHandle: l.credentialHandle,
            bindingKind: "process",
            rootPid: Deno.pid,
          });
        }
        await ok("portreeve_activation_resolve", { activationId, component: "web" });
        for (const l of listeners.splice(0)) l.close();
        await ok("portreeve_activation_reconcile", { activationId });
        await ok("portreeve_activation_end", { activationId });
      },
    );

    await t.step("a launcher operation: renew, complete", async () => {
      // Launcher operation.
      const op = await ok("portreeve_launcher_operation_begin", {
        stackId,
        operation: "start",
        launcherRevision: "d".repeat(64),
        callerOperationId: crypto.randomUUID(),
      });
      await ok("portreeve_launcher_operation_renew", {
        operationId: op.operationId,
        credentialHandle: op.credentialHandle,
        custodyMinutes: 15,
      });
      await ok("portreeve_launcher_operation_complete", {
        operationId: op.operationId,
        credentialHandle: op.credentialHandle,
        completion: { outcome: "succeeded", exitCode: 0 },
      });
      await ok("portreeve_diagnostics");
    });

    await peer.closeStdin();
    assert.equal((await peer.exited()).code, 0);

    const secrets = issuedSecrets(sim);
    assert.ok(secrets.size >= 5, `the scenario used ${secrets.size} secrets`);
    const renewals = sim.requests.filter((r) => r.path.endsWith("/renew")).length;
    assert.ok(renewals >= 4, `${renewals} renewals carried tokens`);
    const written = { stdout: peer.stdoutText(), stderr: peer.stderrText() };
    assert.ok(written.stderr.includes('"level"'), "debug logs were written");
    for (const [stream, text] of Object.entries(written)) {
      for (const secret of secrets) {
        for (const piece of [secret, secret.slice(0, 16), secret.slice(-16)]) {
          assert.ok(!text.includes(piece), `a raw secret (or part of one) reached ${stream}`);
        }
      }
    }
    assert.deepEqual(peer.violations, []);
    console.log(
      `${secrets.size} secrets, ${renewals} renewals; scanned ${written.stdout.length} stdout and ${written.stderr.length} stderr characters`,
    );
    await reportFigure(
      "credentials, whole scenario at debug level",
      `${secrets.size} secrets, ${renewals} renewals; ${
        (written.stdout.length + written.stderr.length).toLocaleString("en-US")
      } characters written, 0 found`,
    );
  } finally {
    for (const l of listeners) l.close();
    await rig.close();
  }
});

/** Occurrences of any 12-character window of any secret, as written and with splits joined. */
function fragmentHits(text: string, secrets: Iterable<string>): number {
  const joined = text.replace(/[^A-Za-z0-9_-]/g, "");
  let hits = 0;
  for (const secret of secrets) {
    for (let i = 0; i + 12 <= secret.length; i++) {
      const piece = secret.slice(i, i + 12);
      hits += text.split(piece).length - 1 + joined.split(piece).length - 1;
    }
  }
  return hits;
}

/**
 * Occurrences of any 12-character window of any secret in the characters of a frame's string
 * values read in order, whatever the field names between them — one stream for values and one
 * for keys, like a reader that skips names. A value holding JSON (a result's text block) is
 * read the same way, one level down.
 */
function valueStreamHits(frames: string, secrets: Iterable<string>): number {
  const streams: string[] = [];
  const read = (value: unknown, into: { values: string[]; keys: string[] }) => {
    if (typeof value === "string") {
      const json = value.indexOf("{");
      const nested = json === -1 ? undefined : parsed(value.slice(json));
      if (nested === undefined) into.values.push(value);
      else {
        into.values.push(value.slice(0, json));
        read(nested, into);
      }
    } else if (Array.isArray(value)) value.forEach((item) => read(item, into));
    else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        into.keys.push(key);
        read(item, into);
      }
    }
  };
  for (const line of frames.split("\n")) {
    const frame = parsed(line);
    if (frame === undefined) continue;
    const into = { values: [] as string[], keys: [] as string[] };
    read(frame, into);
    streams.push(into.values.join(""), into.keys.join(""));
  }
  const joined = streams.map((s) => s.replace(/[^A-Za-z0-9_-]/g, "")).join("\n");
  let hits = 0;
  for (const secret of secrets) {
    for (let i = 0; i + 12 <= secret.length; i++) {
      hits += joined.split(secret.slice(i, i + 12)).length - 1;
    }
  }
  return hits;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Keys named like credentials anywhere in the frames' JSON. */
function credentialKeys(frames: string): number {
  return (frames.match(/"(leaseToken|credential|token|operationCredential)":/g) ?? []).length;
}

Deno.test("credentials: a hostile daemon quoting and echoing tokens leaks none, whole or in part", async (t) => {
  const rig = await simulatedBridge({
    ...REAL_TIME, // renewals run, and fail, on real time
    hostile: true,
    settings: { leaseTtlMilliseconds: 3_000 },
  }, { serveArgs: ["--log-level", "debug", "--label", "hostile"] });
  const { sim, workspace, peer, call, ok, fails } = rig;
  const renewalFailed = (id: string) =>
    peer.stderrText().split("\n").some((line) =>
      line.includes('"type":"renewal-failed"') && line.includes(id)
    );
  /** Jumps the daemon's clock past every TTL and deadline (the bridge's view stays behind). */
  const expireInDaemon = () => sim.control.advance(60_000);
  const codes: string[] = [];
  try {
    await peer.initialize();

    const workspaceClaim = (component: string) => ({
      claim: { project: "hostile", workspaceRoot: workspace, component },
    });
    let stackId = "";
    await t.step(
      "standalone leases: renewals echo; confirm fails, then succeeds; an expired lease fails",
      async () => {
        // Standalone leases: renewals echo; confirm fails (no listener), then succeeds; a lease
        // the daemon expired fails its renewal and its abandon.
        const lease = await ok("portreeve_lease_acquire", workspaceClaim("api"));
        await sleep(1_200);
        codes.push(
          await fails("portreeve_lease_confirm", {
            credentialHandle: lease.credentialHandle,
            rootPid: 4_242,
          }),
        );
        sim.control.addListener(lease.port as number, 4_242);
        await ok("portreeve_lease_confirm", {
          credentialHandle: lease.credentialHandle,
          rootPid: 4_242,
        });
      },
    );

    await t.step(
      "a background renewal that fails for good is logged and reported on next use",
      async () => {
        // A lease whose background renewal fails terminally: the failure is logged (debug) and
        // reported on the next use.
        const lapsing = await ok("portreeve_lease_acquire", workspaceClaim("queue"));
        sim.control.expireLease(lapsing.leaseId as string);
        await eventually(() => renewalFailed(lapsing.leaseId as string)); // its renewal failed
        codes.push(
          await fails("portreeve_lease_confirm", {
            credentialHandle: lapsing.credentialHandle,
            rootPid: 4_242,
          }),
        );

        const doomed = await ok("portreeve_lease_acquire", workspaceClaim("worker"));
        const abandoned = await ok("portreeve_lease_acquire", workspaceClaim("cron"));
        await ok("portreeve_lease_abandon", {
          credentialHandle: abandoned.credentialHandle,
          reason: "client-cancelled",
        });
        expireInDaemon();
        codes.push(
          await fails("portreeve_lease_abandon", {
            credentialHandle: doomed.credentialHandle,
            reason: "startup-error",
          }),
        );
      },
    );

    await t.step(
      "activation: begin, confirm, skip and abandon, with tokens echoed in records",
      async () => {
        // Activation: begin echoes into the activation record; confirm and skip fail, then
        // confirm, skip and abandon succeed with the token echoed in the records returned.
        const started = await rig.beginActivation({ ...THREE_COMPONENT_STACK, project: "hostile" });
        const { begun, activationId } = started;
        stackId = started.stackId;
        await ok("portreeve_activation_custody_extend", { activationId, custodyMinutes: 20 });
        await sleep(1_200); // batch renewals, echoed
        const leases = begun.leases as {
          component: string;
          port: number;
          credentialHandle: string;
        }[];
        const of = (component: string) => leases.find((l) => l.component === component)!;
        const confirmApi = {
          activationId,
          credentialHandle: of("api").credentialHandle,
          bindingKind: "process",
          rootPid: 4_343,
        };
        codes.push(await fails("portreeve_activation_confirm_endpoint", confirmApi));
        codes.push(
          await fails("portreeve_activation_skip_endpoint", {
            activationId,
            credentialHandle: of("web").credentialHandle,
          }),
        );
        sim.control.addListener(of("api").port, 4_343);
        await ok("portreeve_activation_confirm_endpoint", confirmApi);
        await ok("portreeve_activation_skip_endpoint", {
          activationId,
          credentialHandle: of("metrics").credentialHandle,
        });
        await ok("portreeve_activation_abandon_endpoint", {
          activationId,
          credentialHandle: of("web").credentialHandle,
          reason: "startup-error",
        });
        await ok("portreeve_activation_get", { id: activationId });
        await call("portreeve_activation_end", { activationId });
      },
    );

    await t.step(
      "launcher operations: renew and complete echo; past the deadline they fail",
      async () => {
        // Launcher operations: begin, renew and complete echo into the operation record; after
        // the daemon's deadline passes, renew and complete fail quoting the credential.
        const launcher = (callerOperationId: string) => ({
          stackId,
          operation: "status",
          launcherRevision: "f".repeat(64),
          callerOperationId,
        });
        const op = await ok("portreeve_launcher_operation_begin", launcher(crypto.randomUUID()));
        await ok("portreeve_launcher_operation_renew", {
          operationId: op.operationId,
          credentialHandle: op.credentialHandle,
        });
        await ok("portreeve_launcher_operation_complete", {
          operationId: op.operationId,
          credentialHandle: op.credentialHandle,
          completion: { outcome: "succeeded", exitCode: 0 },
        });
        const late = await ok("portreeve_launcher_operation_begin", launcher(crypto.randomUUID()));
        expireInDaemon();
        codes.push(
          await fails("portreeve_launcher_operation_renew", {
            operationId: late.operationId,
            credentialHandle: late.credentialHandle,
          }),
        );
        const completed = await call("portreeve_launcher_operation_complete", {
          operationId: late.operationId,
          credentialHandle: late.credentialHandle,
          completion: { outcome: "failed", exitCode: 1 },
        });
        codes.push(completed.ok ? "ok" : completed.error!.code);
        await ok("portreeve_diagnostics");
      },
    );

    await peer.closeStdin();
    assert.equal((await peer.exited()).code, 0);

    const secrets = issuedSecrets(sim);
    assert.ok(secrets.size >= 9, `the scenario used ${secrets.size} secrets`);
    const credentialRequests = sim.requests.filter((r) =>
      /leaseToken|credential/.test(JSON.stringify(r.body))
    ).length;
    const stdout = peer.stdoutText();
    const stderr = peer.stderrText();
    assert.ok(stderr.includes('"level":"DEBUG"') || stderr.includes('"level"'), "debug logs");
    const hits = { stdout: fragmentHits(stdout, secrets), stderr: fragmentHits(stderr, secrets) };
    assert.deepEqual(hits, { stdout: 0, stderr: 0 }, "raw credential fragments were written");
    // Spread over fields named in the token's own alphabet, a secret's pieces meet again in
    // the values read in order: none of them may.
    const spread = {
      stdout: valueStreamHits(stdout, secrets),
      stderr: valueStreamHits(stderr, secrets),
    };
    assert.deepEqual(spread, { stdout: 0, stderr: 0 }, "a secret split across fields was written");
    assert.ok(stdout.includes('"part0x"'), "the daemon did spread secrets over such fields");
    assert.equal(credentialKeys(stdout), 0, "credential-named fields were passed through");
    const redacted = {
      stdout: stdout.split("[redacted]").length - 1,
      stderr: stderr.split("[redacted]").length - 1,
    };
    // The daemon really did leak: the bridge caught it on both streams.
    assert.ok(redacted.stdout > 0 && redacted.stderr > 0, JSON.stringify(redacted));
    assert.deepEqual(peer.violations, []);
    console.log(
      `hostile: ${secrets.size} secrets, ${credentialRequests} credential-bearing requests, ` +
        `failures ${codes.join(", ")}; 0 fragments on stdout (${stdout.length} chars, ` +
        `${redacted.stdout} redactions) and stderr (${stderr.length} chars, ` +
        `${redacted.stderr} redactions)`,
    );
    await reportFigure(
      "credentials, hostile daemon",
      `${secrets.size} secrets quoted back whole, split and spread; 0 found; ` +
        `${(redacted.stdout + redacted.stderr).toLocaleString("en-US")} redactions`,
    );
  } finally {
    await rig.close();
  }
});
