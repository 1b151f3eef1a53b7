/** `serve --help` says where the socket is looked for, every step in the order it is tried. */
import assert from "node:assert/strict";
import { SERVE_HELP } from "../../../src/cli/serve.ts";
import { CONFIG_HELP } from "../../../src/cli/config.ts";

Deno.test("serve and config --help name each step of socket discovery, in order", () => {
  for (const help of [SERVE_HELP, CONFIG_HELP]) {
    const flat = help.replace(/\s+/g, " ");
    const steps = ["$PORTREEVE_SOCKET", "$PORTREEVE_HOME/portreeve.sock", "the platform default"]
      .map((step) => flat.indexOf(step));
    assert.ok(steps.every((at, i) => at !== -1 && (i === 0 || at > steps[i - 1])), flat);
  }
});
