/** Runs `config` as a real confined process would; spawned by tests/unit/cli/config_test.ts. */
import { runConfigCommand } from "../../../../src/cli/config.ts";

const encoder = new TextEncoder();
Deno.exit(runConfigCommand(Deno.args, {
  stdout: (text) => Deno.stdout.writeSync(encoder.encode(text)),
  stderr: (text) => Deno.stderr.writeSync(encoder.encode(text)),
}));
