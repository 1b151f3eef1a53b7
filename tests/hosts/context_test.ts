/**
 * Our context cost on every host, against the reference bridge's recorded catalogue sent
 * through the same host: tool definitions as each host sends them to its model (and with the
 * server instructions the host shows), for the full toolset, plus Codex's tool_search answer.
 */
import assert from "node:assert/strict";
import { HOSTS } from "./hosts.ts";
import {
  bytesOf,
  codexToolSearch,
  contextBytes,
  contextShown,
  definitionBytes,
} from "./context.ts";

/** At most this share of the reference's bytes, per host. */
const CEILING: Record<string, number> = { claude: 0.8, gemini: 0.8, codex: 0.95 };

for (const adapter of HOSTS) {
  const host = adapter.pkg.host;
  Deno.test(`${host}: our tool definitions cost at most ${CEILING[host]}× the reference's`, async () => {
    const ours = await contextShown(adapter, "ours");
    const reference = await contextShown(adapter, "reference");
    assert.equal(ours.definitions.size, 51);
    assert.ok(reference.definitions.size >= 50, `${reference.definitions.size} reference tools`);
    assert.ok(ours.instructions !== null, `${host} showed no instructions of ours`);
    const definitions = definitionBytes(ours) / definitionBytes(reference);
    const withInstructions = contextBytes(ours) / contextBytes(reference);
    console.log(
      `${host}: definitions ${definitionBytes(ours)} vs ${definitionBytes(reference)} B ` +
        `(${definitions.toFixed(3)}×); with instructions ${contextBytes(ours)} vs ` +
        `${contextBytes(reference)} B (${withInstructions.toFixed(3)}×)`,
    );
    assert.ok(definitions <= CEILING[host], `${definitions.toFixed(3)}×`);
    assert.ok(
      withInstructions <= CEILING[host],
      `${withInstructions.toFixed(3)}× with instructions`,
    );
  });
}

const codex = HOSTS.find((adapter) => adapter.pkg.host === "codex")!;

Deno.test("codex: a tool_search answer costs at most 0.95× the reference's", async () => {
  const ours = await codexToolSearch(codex, "ours");
  const reference = await codexToolSearch(codex, "reference");
  assert.equal(ours.toolCount, 51, "the search returns every tool of ours");
  assert.equal(reference.toolCount, 51, "and every tool of the reference");
  const ratio = bytesOf(ours.found) / bytesOf(reference.found);
  console.log(
    `codex tool_search: ${bytesOf(ours.found)} vs ${bytesOf(reference.found)} B (${
      ratio.toFixed(3)
    }×); namespace line ${bytesOf(ours.namespaceLine ?? "")} vs ${
      bytesOf(reference.namespaceLine ?? "")
    } B`,
  );
  assert.ok(ratio <= 0.95, `${ratio.toFixed(3)}×`);
});
