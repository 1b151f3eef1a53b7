/**
 * Byte-exact human output per host, on disk under golden/. To accept a deliberate
 * change: PROFILES_UPDATE_GOLDEN=1 deno test --allow-read --allow-run --allow-env
 *   --allow-write=tests/unit/profiles/golden tests/unit/profiles/golden_test.ts
 */
import assert from "node:assert/strict";
import {
  type ConfigInput,
  formatHuman,
  HOST_IDS,
  type Installation,
  renderConfig,
} from "../../../src/profiles/mod.ts";
import { COMPILED, ENV_SOCKET, HOME_SOCKET, PLACES, SCRIPT } from "./golden/fixtures.ts";

type Case = [name: string, input: Omit<ConfigInput, "host">, installation: Installation];

const awkward = PLACES.find((place) => place.name === "awkward")!;

const CASES: readonly Case[] = [
  ["exact, source run", { portable: false, socket: HOME_SOCKET }, SCRIPT],
  [
    "exact, source run, label and toolset, PORTREEVE_SOCKET",
    { portable: false, socket: ENV_SOCKET, label: "main", toolset: "read" },
    SCRIPT,
  ],
  ["exact, compiled, label", { portable: false, socket: HOME_SOCKET, label: "ci" }, COMPILED],
  ["portable", { portable: true, socket: HOME_SOCKET }, SCRIPT],
  [
    "portable, label and toolset, PORTREEVE_SOCKET",
    { portable: true, socket: ENV_SOCKET, label: "main", toolset: "coordinate" },
    SCRIPT,
  ],
  ["exact, awkward paths", { portable: false, socket: awkward.socket }, awkward.script],
  [
    "exact, compiled, --approval auto",
    { portable: false, socket: HOME_SOCKET, approval: "auto" },
    COMPILED,
  ],
];

function render(host: string): string {
  return CASES.map(([name, input, installation]) =>
    `===== ${name} =====\n${formatHuman(renderConfig({ host, ...input }, installation))}`
  ).join("\n");
}

for (const host of HOST_IDS) {
  Deno.test(`golden: ${host} human output`, async () => {
    const file = new URL(`./golden/${host}.txt`, import.meta.url);
    const actual = render(host);
    if (Deno.env.get("PROFILES_UPDATE_GOLDEN") === "1") await Deno.writeTextFile(file, actual);
    assert.equal(actual, await Deno.readTextFile(file));
  });
}
