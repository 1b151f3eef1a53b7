/**
 * How the bridge treats each host, from its profile: every profile states its result limit (a
 * number, or null where none is known) and whether its errors are flagged; `serve` hands the
 * bridge both for the hosts it knows by name, and any other host gets the smallest limit a
 * profile states and flagged errors. Walked through a real bridge and the SDK's own client,
 * named as each host names itself, so what a profile says is what that host gets.
 */
import assert from "node:assert/strict";
import { HostClient } from "../../support/host_client.ts";
import { type CallToolResult, InMemoryTransport } from "@modelcontextprotocol/server";
import {
  clientNamesOf,
  ENTRY_NAMED_CLIENTS,
  HOST_PROFILES,
  hostTreatments,
  MCP_CLIENT_NAMES,
  parseProfile,
} from "../../../src/profiles/mod.ts";
import { type HostTreatments, treatmentFor } from "../../../src/shared/host_treatment.ts";
import { SMALLEST_RESULT_BYTES } from "../../../src/results/pagination.ts";
import { createBridge } from "../../../src/bridge/mod.ts";
import { CredentialFragments } from "../../../src/custody/fragments.ts";
import { envelopeOf, isErrorResult } from "../../../src/results/result.ts";
import { BridgeError, Codes } from "../../../src/shared/errors.ts";
import codex from "../../../config-profiles/codex.json" with { type: "json" };

Deno.test("every profile states resultLimitBytes; a profile without it is refused", () => {
  for (const profile of HOST_PROFILES) {
    assert.ok(
      profile.resultLimitBytes === null || profile.resultLimitBytes >= 1_000,
      `${profile.id}: ${profile.resultLimitBytes}`,
    );
  }
  const { resultLimitBytes: _limit, ...without } = codex;
  assert.throws(() => parseProfile(without, "codex.json"), /resultLimitBytes/);
  assert.throws(
    () => parseProfile({ ...codex, resultLimitBytes: "12 KB" }, "codex.json"),
    /resultLimitBytes must be null or a whole number of bytes/,
  );
});

Deno.test("the bridge knows the named hosts' limits; any other gets the smallest stated of one envelope", () => {
  const hosts = hostTreatments();
  const limitOf = (name: string | undefined) => treatmentFor(hosts, name).resultLimitBytes;
  // A limit of what a host shows twice (Cline) is not one of envelope bytes: left out.
  const stated = HOST_PROFILES.filter((p) => (p.resultShownAs ?? "envelope") === "envelope")
    .flatMap((p) => p.resultLimitBytes ?? []);
  assert.equal(hosts.fallback.resultLimitBytes, Math.min(...stated));
  // The bridge's own default, for a bridge built without the profiles, is the same.
  assert.equal(hosts.fallback.resultLimitBytes, SMALLEST_RESULT_BYTES);
  for (const id of [...Object.keys(MCP_CLIENT_NAMES), ...Object.keys(ENTRY_NAMED_CLIENTS)]) {
    const profile = HOST_PROFILES.find((p) => p.id === id);
    assert.ok(profile, `a client name for a host with no profile: ${id}`);
    for (const name of [...clientNamesOf(id), ...clientNamesOf(id, "my-ports")]) {
      assert.equal(limitOf(name), profile.resultLimitBytes ?? hosts.fallback.resultLimitBytes);
      assert.equal(
        treatmentFor(hosts, name).resultShownAs,
        profile.resultLimitBytes === null ? undefined : profile.resultShownAs,
      );
      assert.equal(limitOf(name.toUpperCase()), limitOf(name));
    }
  }
  assert.equal(limitOf("some-new-host"), hosts.fallback.resultLimitBytes);
  assert.equal(limitOf(undefined), hosts.fallback.resultLimitBytes);
  assert.equal(limitOf("constructor"), hosts.fallback.resultLimitBytes, "own names only");
  assert.equal(hosts.fallback.resultShownAs, undefined, "one envelope, as most hosts show it");
  // Cline shows the result as JSON (the envelope twice) and cuts it at 8,000 characters.
  const cline = treatmentFor(hosts, "@cline/core");
  assert.deepEqual([cline.resultLimitBytes, cline.resultShownAs], [8_000, "result-json"]);
});

Deno.test("host names match exactly: a name like a known host's gets what an unknown host gets", () => {
  const hosts = hostTreatments();
  const known = (name: string) => treatmentFor(hosts, name) !== hosts.fallback;
  const exact = Object.values(MCP_CLIENT_NAMES).flat();
  const near = (name: string) => [
    `${name}-x`,
    `${name}x`,
    `x${name}`,
    `x-${name}`,
    name.slice(0, -1),
    name.slice(1),
    ` ${name}`,
    `${name} `,
    `${name}/2`,
  ];
  const wrong: string[] = [];
  for (const name of exact) {
    assert.ok(known(name), name);
    for (const other of near(name)) {
      if (!exact.includes(other) && known(other)) wrong.push(`${other} (near ${name})`);
    }
  }
  for (const start of Object.values(ENTRY_NAMED_CLIENTS)) {
    for (const entry of ["portreeve", "my-ports", "PortReeve", "p", "ports.local"]) {
      assert.ok(known(start + entry), `${start}${entry}: any entry name`);
    }
    for (const other of [start, start.slice(0, -1), `${start.slice(0, -1)}x-portreeve`]) {
      if (known(other)) wrong.push(`${other} (an entry-named host's start, not completed)`);
    }
    for (const other of near(`${start}portreeve`).filter((n) => !n.startsWith(start))) {
      if (known(other)) wrong.push(`${other} (near ${start}portreeve)`);
    }
  }
  assert.deepEqual(wrong, []);
  // The review's case: a host named like Gemini CLI is not given Gemini CLI's unflagged errors.
  assert.equal(treatmentFor(hosts, "gemini-cli-x").flagsToolErrors, true);
  assert.equal(treatmentFor(hosts, "gemini-cli-mcp-client-x").flagsToolErrors, true);
  assert.equal(treatmentFor(hosts, "qwen-cli-mcp-client-anything").flagsToolErrors, false);
});

Deno.test("a profile whose limit is not known gets the smallest stated, not none", () => {
  const unknown = HOST_PROFILES.map((p) =>
    p.id === "gemini" ? { ...p, resultLimitBytes: null } : p
  );
  const hosts = hostTreatments(unknown);
  assert.equal(
    treatmentFor(hosts, MCP_CLIENT_NAMES.gemini[0]).resultLimitBytes,
    hosts.fallback.resultLimitBytes,
  );
});

Deno.test("every profile states flagsToolErrors: only Gemini CLI's and its fork Qwen Code's are false", () => {
  const unflagged = HOST_PROFILES.filter((p) => !p.flagsToolErrors).map((p) => p.id);
  assert.deepEqual(unflagged.sort(), ["gemini", "qwen"]);
  // A host the bridge cannot tell by name gets flagged errors, whatever its profile said.
  for (const profile of HOST_PROFILES) {
    if (clientNamesOf(profile.id).length === 0) assert.equal(profile.flagsToolErrors, true);
  }
  const { flagsToolErrors: _flag, ...without } = codex;
  assert.throws(() => parseProfile(without, "codex.json"), /flagsToolErrors/);
  assert.throws(
    () => parseProfile({ ...codex, flagsToolErrors: "no" }, "codex.json"),
    /flagsToolErrors must be true or false/,
  );
});

/**
 * A failed call and a busy refusal as the bridge answers a client named `name`, and what each
 * of `more` tools answers to `{}` (with no daemon behind the socket, each fails).
 */
async function errorsFor(hosts: HostTreatments, name: string, more: readonly string[] = []) {
  const bridge = createBridge({
    socket: { path: "/nonexistent/portreeve-test/portreeve.sock", source: "flag" },
    toolset: "full",
    hosts,
    fragments: new CredentialFragments(),
  });
  const shutdown = new AbortController();
  const server = bridge.server(shutdown.signal);
  const [near, far] = InMemoryTransport.createLinkedPair();
  const client = new HostClient({ name, version: "0" });
  try {
    await server.connect(near);
    await client.connect(far);
    // The client now checks each result against the tool's output schema, as Gemini CLI's
    // does: an unflagged result without structuredContent would throw here.
    await client.listTools();
    const failed = await client.callTool({ name: "portreeve_claim_get", arguments: {} });
    const busy = bridge.refused(new BridgeError(Codes.bridgeBusy, "Too many calls.", true), name);
    const others: [string, CallToolResult][] = [];
    for (const tool of more) {
      others.push([tool, await client.callTool({ name: tool, arguments: {} }) as CallToolResult]);
    }
    return { failed: failed as CallToolResult, busy, others };
  } finally {
    shutdown.abort();
    await client.close();
    await server.close();
    await bridge.close();
  }
}

/** Asserts `result` is an error marked as `flagged` says, and returns its text. */
function markedError(result: CallToolResult, flagged: boolean, what: string): string {
  assert.ok(isErrorResult(result), what);
  assert.equal(envelopeOf(result).ok, false, what);
  assert.equal(result.content.length, 1, what);
  if (flagged) {
    assert.equal(result.isError, true, what);
    assert.equal(result.structuredContent, undefined, what);
  } else {
    assert.equal(result.isError, undefined, what);
    assert.deepEqual(result.structuredContent, { ok: false }, what);
  }
  const [first] = result.content;
  assert.equal(first.type, "text", what);
  return first.type === "text" ? first.text : "";
}

Deno.test("every profile's flagsToolErrors reaches the bridge by its host's name", async () => {
  const hosts = hostTreatments();
  const named = HOST_PROFILES.flatMap((profile) =>
    // An entry called something else than the printed "portreeve": recognised all the same.
    clientNamesOf(profile.id, "my-ports").map((name) => ({
      name,
      flagged: profile.flagsToolErrors,
    }))
  );
  const cases = [...named, { name: "some-new-host", flagged: true }];
  assert.ok(cases.some((c) => !c.flagged) && cases.some((c) => c.flagged), "both kinds walked");
  const texts = new Set<string>();
  for (const { name, flagged } of cases) {
    const { failed, busy } = await errorsFor(hosts, name);
    const text = markedError(failed, flagged, `${name}: a failed call`);
    assert.match(text, /^portreeve_invalid_input \(not retryable\): /, name);
    texts.add(text);
    markedError(busy, flagged, `${name}: a busy refusal`);
  }
  assert.equal(texts.size, 1, "flagged or not, the text is the same");
});

Deno.test("the flag follows the profile, not the host's name", async () => {
  const flagged = HOST_PROFILES.map((p) => p.id === "gemini" ? { ...p, flagsToolErrors: true } : p);
  const { failed } = await errorsFor(hostTreatments(flagged), MCP_CLIENT_NAMES.gemini[0]);
  markedError(failed, true, "Gemini CLI with a profile that flags its errors");
});

Deno.test("an unflagged error of every tool passes its output schema in the host's client", async () => {
  const bridge = createBridge({
    socket: { path: "/nonexistent/p.sock", source: "flag" },
    toolset: "full",
    fragments: new CredentialFragments(),
  });
  const tools = bridge.catalogue.listing().map((tool) => tool.name);
  await bridge.close();
  const { others } = await errorsFor(hostTreatments(), MCP_CLIENT_NAMES.gemini[0], tools);
  // A report on the bridge itself (diagnostics) succeeds without a daemon; every other fails.
  const failed = others.filter(([, result]) => isErrorResult(result));
  assert.ok(failed.length >= tools.length - 2, `${failed.length} of ${tools.length} failed`);
  for (const [tool, result] of failed) markedError(result, false, tool);
});

Deno.test("every named host's treatment names its profile (for `doctor --host`); no other does", () => {
  const hosts = hostTreatments();
  for (const [id, names] of Object.entries(MCP_CLIENT_NAMES)) {
    for (const name of names) assert.equal(treatmentFor(hosts, name).host, id, name);
  }
  assert.equal(treatmentFor(hosts, "some-new-host").host, undefined);
  assert.equal(hosts.fallback.host, undefined);
});
