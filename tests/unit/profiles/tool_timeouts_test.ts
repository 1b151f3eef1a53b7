/**
 * A host's deadline for a call never comes before the bridge's own answer. Every host whose
 * published entry format (tests/fixtures/host_formats/) has a per-server deadline gets one in
 * its printed entry that outlasts the bridge's bound on a call (`serve --daemon-wait-ms`), or is
 * named below with why it is left at the host's default; a new host cannot slip past.
 */
import assert from "node:assert/strict";
import { parse as parseToml } from "smol-toml";
import { HOST_PROFILES, renderConfig } from "../../../src/profiles/mod.ts";
import { DEFAULT_DAEMON_WAIT_MS } from "../../../src/shared/options.ts";
import { HOME_SOCKET, SCRIPT } from "./golden/fixtures.ts";

/** The deadline fields hosts' formats use, and their unit in milliseconds. */
const DEADLINE_FIELDS: Readonly<Record<string, number>> = { timeout: 1, tool_timeout_sec: 1000 };

/** Hosts whose `timeout` counts seconds, not milliseconds. */
const IN_SECONDS = new Set(["cline"]);

/** Hosts whose format has a deadline the printed entry leaves at the host's default, and why. */
const LEFT_AT_DEFAULT: Readonly<Record<string, string>> = {
  zed: "the unit of Zed's context-server timeout is not verified here",
};

/** The bridge's bound, and a minute for its answer to reach the host. */
const AT_LEAST_MS = DEFAULT_DAEMON_WAIT_MS + 60_000;

const FORMATS = new URL("../../fixtures/host_formats/", import.meta.url);

Deno.test("every host's own call deadline outlasts the bridge's bound on a call", async () => {
  let checked = 0;
  for (const profile of HOST_PROFILES.filter((p) => p.id !== "generic")) {
    const format = JSON.parse(await Deno.readTextFile(new URL(`${profile.id}.json`, FORMATS)));
    const fields = Object.keys(format.fields).filter((f) => Object.hasOwn(DEADLINE_FIELDS, f));
    const { configuration, configurationLanguage } = renderConfig(
      { host: profile.id, portable: false, socket: HOME_SOCKET },
      SCRIPT,
    );
    const root = configurationLanguage === "toml"
      ? JSON.parse(JSON.stringify(parseToml(configuration)))
      : JSON.parse(configuration);
    let entry = root;
    for (const key of format.serversAt) entry = entry[key];
    entry = entry.portreeve;
    for (const field of fields) {
      if (Object.hasOwn(LEFT_AT_DEFAULT, profile.id)) {
        assert.equal(entry[field], undefined, `${profile.id}: ${LEFT_AT_DEFAULT[profile.id]}`);
        continue;
      }
      const unit = IN_SECONDS.has(profile.id) ? 1000 : DEADLINE_FIELDS[field];
      assert.equal(typeof entry[field], "number", `${profile.id} sets ${field}`);
      assert.ok(
        entry[field] * unit >= AT_LEAST_MS,
        `${profile.id}: ${field} ${entry[field]} is shorter than the bridge's bound and a minute`,
      );
      checked++;
    }
  }
  assert.ok(checked >= 6, "Codex, Cline, OpenCode, Gemini CLI, Qwen Code, Copilot CLI");
});
