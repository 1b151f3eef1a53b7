/**
 * Errors once and small, as each host shows them (tests/support/host_views.ts): the failures
 * the reference bridge's recorded errors cover, and a schema-validation error, are each at most
 * 1.5× the reference's bytes on Claude Code, Codex and Gemini CLI; and no error the bridge can
 * make states a detail its message already states.
 */
import assert from "node:assert/strict";
import { daemonError, ok, toolRig } from "../../support/scripted_daemon.ts";
import { byteLength, hostView, VIEW_HOSTS } from "../../support/host_views.ts";
import { unavailable } from "../../../src/daemon/errors.ts";
import { errorEnvelope, failure, unstated } from "../../../src/results/result.ts";
import { bridgeErrorSamples } from "../../support/error_samples.ts";
import reference from "../../fixtures/reference_errors.json" with { type: "json" };

/**
 * The reference's recorded error as a host shows it (one copy of its JSON), the socket path
 * counted as `<socket>`, which differs between machines.
 */
function referenceBytes(code: keyof typeof reference.errors): number {
  const text = reference.errors[code].result.content[0].text;
  return byteLength(text.replaceAll(reference.socketPath, "<socket>"));
}

/**
 * The reference's answer to `portreeve_port_inspect {port: 70000}` as Claude Code showed it,
 * measured with the real host (issue 28): its SDK's schema-validation error, 119 bytes.
 */
const REFERENCE_SCHEMA_ERROR_BYTES = 119;

const SOCKET = "/home/dev/home/.local/state/portreeve/portreeve.sock";
const CLAIM = "f801cd12-eec3-4097-a649-c5f58fd345c0";
const down = () => {
  throw unavailable(SOCKET, "ECONNREFUSED");
};

Deno.test("every measured error is at most 1.5× the reference's bytes on every host", async () => {
  const cases = [
    {
      what: "not found (claim_get)",
      reference: referenceBytes("portreeve_not_found"),
      rig: () =>
        toolRig(() =>
          daemonError(404, "not_found", `Claim ${CLAIM} was not found.`, {
            details: { claimId: CLAIM },
          })
        ),
      tool: "portreeve_claim_get",
      args: { id: CLAIM },
    },
    {
      what: "a cursor from elsewhere (history_list)",
      reference: referenceBytes("portreeve_invalid_input"),
      rig: () => toolRig(() => ok({ items: [], page: { nextCursor: null } })),
      tool: "portreeve_history_list",
      args: { limit: 5, afterCursor: "not-a-real-cursor" },
    },
    {
      what: "the daemon down (health)",
      reference: referenceBytes("portreeve_unavailable"),
      rig: () => toolRig(down),
      tool: "portreeve_health",
      args: {},
    },
    {
      what: "a port out of range (port_inspect)",
      reference: REFERENCE_SCHEMA_ERROR_BYTES,
      rig: () => toolRig(down),
      tool: "portreeve_port_inspect",
      args: { port: 70000 },
    },
  ];
  for (const { what, reference, rig, tool, args } of cases) {
    await using tools = rig();
    const called = await tools.call(tool, args);
    assert.equal(called.isError, true, what);
    for (const host of VIEW_HOSTS) {
      const shown = byteLength(hostView(host, called.result).replaceAll(SOCKET, "<socket>"));
      assert.ok(
        shown <= 1.5 * reference,
        `${what} on ${host}: ${shown} B vs the reference's ${reference} B`,
      );
    }
  }
});

Deno.test("no error the bridge makes states a detail its message already states", async () => {
  const samples = await bridgeErrorSamples();
  assert.ok(samples.length > 40, `${samples.length} samples`);
  for (const { made, error } of samples) {
    const envelope = errorEnvelope(error);
    assert.deepEqual(
      unstated(envelope.details ?? {}, envelope.message),
      envelope.details ?? {},
      made,
    );
    // The text a host shows holds the message once.
    const text = (failure(error).content[0] as { text: string }).text;
    assert.equal(text.split(envelope.message).length, 2, `${made}: ${text}`);
  }
});
