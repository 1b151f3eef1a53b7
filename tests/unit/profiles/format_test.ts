/** The building blocks: shell quoting, the TOML writer, templates and profile validation. */
import assert from "node:assert/strict";
import { parse as parseToml } from "smol-toml";
import { HOST_PROFILES, parseProfile, stringifyToml } from "../../../src/profiles/mod.ts";
import { shellQuote } from "../../../src/shared/shell.ts";
import { expand, expandWords } from "../../../src/profiles/template.ts";
import { shellWords } from "./golden/fixtures.ts";

/** smol-toml builds null-prototype objects; compare through a JSON copy. */
function tomlValue(text: string): unknown {
  return JSON.parse(JSON.stringify(parseToml(text)));
}

Deno.test("shellQuote: safe words stay bare, everything else is single-quoted", () => {
  assert.equal(shellQuote("/usr/bin/deno"), "/usr/bin/deno");
  assert.equal(
    shellQuote("--allow-net=unix:/a.sock,portreeve.invalid"),
    "--allow-net=unix:/a.sock,portreeve.invalid",
  );
  assert.equal(shellQuote("50%+@x"), "50%+@x");
  assert.equal(shellQuote(""), "''");
  assert.equal(shellQuote("a b"), "'a b'");
  assert.equal(shellQuote("O'Hara"), `'O'\\''Hara'`);
  assert.equal(shellQuote("~/x"), "'~/x'");
  assert.equal(shellQuote("$HOME"), "'$HOME'");
});

Deno.test("shellQuote: words survive bash and dash", async () => {
  const words = [
    "",
    "a b",
    "O'Hara",
    "''",
    `"q"`,
    "back\\slash",
    "$HOME $(id) `id`",
    "*?[a]",
    "!x",
    "日本 🚀",
    "a\nb\tc",
    "-n",
    "#c",
    "~",
    "a=b",
  ];
  const command = ["codex", ...words].map((word, i) => i === 0 ? word : shellQuote(word)).join(" ");
  for (const shell of ["bash", "dash"]) assert.deepEqual(await shellWords(shell, command), words);
});

Deno.test("stringifyToml: smol-toml's tables and nested tables parse back; what it cannot keep is refused", () => {
  const tricky = `O'Hara "Q" \\x\u0001\u001f\r\n日本🚀`;
  const value = {
    top: "level",
    mcp_servers: {
      "odd key.x": {
        command: "/bin/x",
        args: Array.from({ length: 12 }, (_, i) => `argument-${i}`),
        short: [tricky],
        n: 20,
        on: true,
        env: { PORTREEVE_SOCKET: "/s", "A B": "c" },
      },
    },
  };
  const text = stringifyToml(value);
  assert.deepEqual(tomlValue(text), value);
  assert.match(text, /^top = "level"\n\n\[mcp_servers\."odd key\.x"\]\n/);
  assert.throws(() => stringifyToml({ a: null }), { name: "TomlError" });
  assert.throws(() => stringifyToml({ a: ["\ud800"] }), { name: "TomlError" });
});

Deno.test("templates: placeholders substitute data; an empty env disappears", () => {
  const values = { command: "/c", args: ["a", "b"], env: {} };
  const template = { command: "${command}", args: "${args}", env: "${env}", keep: "lit" };
  assert.deepEqual(expand(template, values), { command: "/c", args: ["a", "b"], keep: "lit" });
  assert.deepEqual(expandWords(["x", "${env:flags}", "--", "${command}", "${args}"], values), [
    "x",
    "--",
    "/c",
    "a",
    "b",
  ]);
});

Deno.test("templates: a non-empty env is kept, as data and as --env flags", () => {
  const values = { command: "/c", args: [], env: { PORTREEVE_SOCKET: "/s p" } };
  assert.deepEqual(expand({ env: "${env}" }, values), { env: { PORTREEVE_SOCKET: "/s p" } });
  assert.deepEqual(expandWords(["add", "${env:flags}"], values), [
    "add",
    "--env",
    "PORTREEVE_SOCKET=/s p",
  ]);
  const server = expand({ command: "${command}", env: "${env}" }, values)!;
  assert.equal(
    expand("${server:json}", { ...values, server }),
    '{"command":"/c","env":{"PORTREEVE_SOCKET":"/s p"}}',
  );
});

Deno.test("templates: unknown or partial placeholders are profile errors", () => {
  const values = { command: "/c", args: [], env: {} };
  assert.throws(() => expand("${nope}", values), { name: "TemplateError" });
  assert.throws(() => expand("run ${command}", values), { name: "TemplateError" });
  assert.throws(() => expand({ "${command}": 1 }, values), { name: "TemplateError" });
  assert.throws(() => expand("${server}", values), { name: "TemplateError" });
});

Deno.test("templates: $encode renders any template as one string, step by step", () => {
  const values = { command: "/c d", args: ["a"], env: { K: "v+/=" } };
  const server = expand({ command: "${command}", args: "${args}", env: "${env}" }, values)!;
  const text = JSON.stringify(server);
  const withServer = { ...values, server };
  assert.equal(expand({ $encode: ["json"], of: "${server}" }, withServer), text);
  const base64 = btoa(text);
  assert.equal(expand({ $encode: ["json", "base64"], of: "${server}" }, withServer), base64);
  assert.equal(
    expand({ $encode: ["json", "base64", "uri"], of: "${server}" }, withServer),
    encodeURIComponent(base64),
  );
  // Non-ASCII text is base64 of its UTF-8 bytes.
  const utf8 = expand({ $encode: ["base64"], of: "日本 é" }, values);
  assert.equal(
    new TextDecoder().decode(Uint8Array.from(atob(String(utf8)), (c) => c.charCodeAt(0))),
    "日本 é",
  );
  // As a setup word, it is one word.
  assert.deepEqual(expandWords(["code", { $encode: ["json"], of: { name: "p" } }], values), [
    "code",
    '{"name":"p"}',
  ]);
});

Deno.test("templates: an $encode that cannot end in text is a profile error", () => {
  const values = { command: "/c", args: [], env: {} };
  assert.throws(() => expand({ $encode: ["base64"], of: { a: 1 } }, values), /needs text/);
  assert.throws(() => expand({ $encode: ["zip"], of: "x" }, values), /unknown \$encode step/);
  assert.throws(() => expand({ $encode: [], of: "x" }, values), { name: "TemplateError" });
  assert.throws(() => expand({ $encode: ["json"], of: "x", extra: 1 }, values), {
    name: "TemplateError",
  });
});

Deno.test("profiles: every shipped profile is valid and named after its file", async () => {
  const dir = new URL("../../../config-profiles/", import.meta.url);
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".json")) files.push(entry.name);
  }
  // Every file on disk is listed in hosts.ts, and nothing else is.
  assert.deepEqual(files.sort(), HOST_PROFILES.map((profile) => `${profile.id}.json`).sort());
  for (const name of files) {
    const raw = JSON.parse(await Deno.readTextFile(new URL(name, dir)));
    assert.deepEqual(parseProfile(raw, name), HOST_PROFILES.find((p) => `${p.id}.json` === name));
  }
});

Deno.test("profiles: malformed profiles are rejected with the file name", () => {
  const good = structuredClone(HOST_PROFILES[0]);
  assert.throws(() => parseProfile([], "x.json"), /x\.json: must be a JSON object/);
  assert.throws(() => parseProfile({ ...good, extra: 1 }, "x.json"), /unknown key "extra"/);
  assert.throws(() => parseProfile({ ...good, id: "Bad Id" }, "x.json"), /id must be/);
  assert.throws(
    () => parseProfile({ ...good, configurationLanguage: "yaml" }, "x.json"),
    /json" or "toml/,
  );
  assert.throws(() => parseProfile({ ...good, setupCommand: [1] }, "x.json"), /setupCommand/);
  assert.throws(() => parseProfile({ ...good, notes: "n" }, "x.json"), /notes/);
  assert.throws(() => parseProfile({ ...good, resultLimitBytes: 1.5 }, "x.json"), /resultLimit/);
  assert.throws(() => parseProfile({ ...good, resultLimitBytes: 0 }, "x.json"), /resultLimit/);
  const { resultLimitBytes: _, ...without } = good;
  assert.throws(() => parseProfile(without, "x.json"), /resultLimitBytes/);
  assert.throws(() => parseProfile({ ...good, asksThroughMcp: "yes" }, "x.json"), /asksThroughMcp/);
  assert.throws(
    () => parseProfile({ ...good, installLink: [{ $encode: ["gzip"], of: "x" }] }, "x.json"),
    /installLink/,
  );
  const { asksThroughMcp: _asks, ...unasked } = good;
  assert.throws(() => parseProfile(unasked, "x.json"), /asksThroughMcp/);
  assert.throws(() => parseProfile({ ...good, flagsToolErrors: null }, "x.json"), /flagsToolErr/);
});
