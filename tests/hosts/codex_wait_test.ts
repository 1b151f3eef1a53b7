/**
 * Codex sends its first model request about a second after it starts, listed tools or not; the
 * printed entry's `required = true` makes it wait for the bridge. Measured over repeated runs
 * of `codex exec`: how many first model requests carry our tools, with the entry as printed and,
 * for comparison, with `required` taken out.
 */
import assert from "node:assert/strict";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { openaiResponses } from "./dialects.ts";
import { isRecord, startFakeModel } from "./fake_model.ts";
import { codex } from "./hosts.ts";
import { installedBin } from "./install.ts";
import { type PrintedConfig, printedConfig, startRig } from "./rig.ts";

const RUNS = 5;

/** The printed configuration with `required` removed from the portreeve entry. */
function withoutRequired(config: PrintedConfig): PrintedConfig {
  const parsed = parseToml(config.configuration);
  const servers = parsed.mcp_servers;
  if (!isRecord(servers) || !isRecord(servers.portreeve)) throw new Error("no codex entry");
  delete servers.portreeve.required;
  return { ...config, configuration: stringifyToml(parsed) };
}

/** Of `runs` runs, how many first model requests offered our tools. */
async function firstTurnsWithTools(required: boolean, runs: number): Promise<number> {
  const bin = await installedBin(codex.pkg);
  const rig = await startRig();
  try {
    const printed = await printedConfig("codex", rig.socket);
    await codex.configure(rig, required ? printed : withoutRequired(printed));
    let carried = 0;
    for (let run = 0; run < runs; run++) {
      const fake = startFakeModel(openaiResponses, []);
      try {
        const result = await codex.run(bin, rig, fake.url);
        const first = fake.calls.find((call) => call.path.endsWith("/responses"));
        assert.ok(first !== undefined, `codex made no model request (exit ${result.code})`);
        if (openaiResponses.isTurn("/v1/responses", JSON.parse(first.body))) carried++;
      } finally {
        await fake.close();
      }
    }
    return carried;
  } finally {
    await rig.close();
  }
}

Deno.test(`codex: with the printed entry (required = true), every first model request of ${RUNS} runs carries our tools`, async () => {
  const waited = await firstTurnsWithTools(true, RUNS);
  const without = await firstTurnsWithTools(false, RUNS);
  console.log(
    `codex ${codex.pkg.version}: first model request carried our tools in ${waited} of ${RUNS} ` +
      `runs with required = true, ${without} of ${RUNS} without it`,
  );
  assert.equal(waited, RUNS);
});
