/**
 * Errors once and small, as each host shows them (tests/support/host_views.ts): the failures
 * the reference bridge's recorded errors cover, and a schema-validation error, are each at most
 * 1.5× the reference's bytes on Claude Code, Codex and Gemini CLI; and no error the bridge can
 * make states a detail its message already states, but for the details read by name.
 */
import assert from "node:assert/strict";
import { daemonError, ok, toolRig } from "../../support/scripted_daemon.ts";
import { byteLength, hostView, sentTo, VIEW_HOSTS } from "../../support/host_views.ts";
import { unavailable } from "../../../src/daemon/errors.ts";
import { errorEnvelope, failure, unstated } from "../../../src/results/result.ts";
import { bridgeErrorSamples } from "../../support/error_samples.ts";
import { BridgeError, Codes } from "../../../src/shared/errors.ts";
import { findHost } from "../../../src/profiles/hosts.ts";
import { DETAILS_READ_BY_NAME, ERROR_CODES } from "../../../src/shared/error_codes.ts";
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
      rig: (flagsToolErrors: boolean) =>
        toolRig(() =>
          daemonError(404, "not_found", `Claim ${CLAIM} was not found.`, {
            details: { claimId: CLAIM },
          }), { flagsToolErrors }),
      tool: "portreeve_claim_get",
      args: { id: CLAIM },
    },
    {
      what: "a cursor from elsewhere (history_list)",
      reference: referenceBytes("portreeve_invalid_input"),
      rig: (flagsToolErrors: boolean) =>
        toolRig(() => ok({ items: [], page: { nextCursor: null } }), { flagsToolErrors }),
      tool: "portreeve_history_list",
      args: { limit: 5, afterCursor: "not-a-real-cursor" },
    },
    {
      what: "the daemon down (health)",
      reference: referenceBytes("portreeve_unavailable"),
      rig: (flagsToolErrors: boolean) => toolRig(down, { flagsToolErrors }),
      tool: "portreeve_health",
      args: {},
    },
    {
      what: "a port out of range (port_inspect)",
      reference: REFERENCE_SCHEMA_ERROR_BYTES,
      rig: (flagsToolErrors: boolean) => toolRig(down, { flagsToolErrors }),
      tool: "portreeve_port_inspect",
      args: { port: 70000 },
    },
  ];
  for (const { what, reference, rig, tool, args } of cases) {
    await using unnamed = rig(true);
    const flagged = (await unnamed.call(tool, args)).result;
    for (const host of VIEW_HOSTS) {
      // The result as the bridge sends it to this host: flagged or not, as its profile says.
      await using tools = rig(findHost(host)!.flagsToolErrors);
      const called = await tools.call(tool, args);
      assert.equal(called.isError, true, what);
      assert.deepEqual(
        sentTo(host, flagged),
        called.result,
        `${what}: the bench's view of ${host}`,
      );
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

Deno.test("details read by name stay, even where the message holds the same word", () => {
  const error = new BridgeError(
    Codes.daemonError,
    'The daemon failed with an unknown error code "internal"; HTTP 500.',
    false,
    { outcome: "unknown", daemonCode: "internal", status: 500, echoed: "internal" },
  );
  const { details } = errorEnvelope(error);
  assert.deepEqual(details, { outcome: "unknown", daemonCode: "internal", status: 500 });
});

Deno.test("every detail a next step, a meaning or docs/errors.md reads by name is kept by name", async () => {
  // The table's own words (its steps that are functions render details into text instead).
  const words: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") words.push(value);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(collect);
  };
  collect(ERROR_CODES);
  words.push(await Deno.readTextFile(new URL("../../../docs/errors.md", import.meta.url)));
  const named = new Set(
    words.flatMap((text) => [...text.matchAll(/details\.([A-Za-z]+)/g)]).map((m) => m[1]),
  );
  assert.ok(named.size > 10, [...named].join(", "));
  const missing = [...named].filter((key) => !DETAILS_READ_BY_NAME.has(key));
  assert.deepEqual(missing, [], "named as details.<key> but not in DETAILS_READ_BY_NAME");
});
