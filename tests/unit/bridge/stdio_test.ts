/**
 * `serve`'s guards as it builds them (src/bridge/stdio.ts), one fast test per layer, each failing
 * when that layer alone is taken out: log lines at debug level, console output, stdout frames,
 * and a call refused unparsed answered as a tool error. The bridge runs on stand-in stdio in this
 * process; the credential is one its own custody holds, so a writer built around any record but
 * custody's fails here too.
 */
import assert from "node:assert/strict";
import { type ServeIo, type Serving, startServing } from "../../../src/bridge/stdio.ts";
import { configureLogging, flushLogs, logger } from "../../../src/shared/logging.ts";
import { REDACTED } from "../../../src/custody/fragments.ts";
import { Watched } from "../../support/watched.ts";

const TOKEN = "Qx7_vR2-mK9pL4sT8wY1zB6nD3fH5jG0aC2eU7iO4yW";
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Stdio stand-ins: stdin fed by `send`, ended by `end`; stdout and stderr kept as text. */
function standIns() {
  const lines: Uint8Array[] = [];
  let ended = false;
  const watched = new Watched();
  let stdout = "";
  let stderr = "";
  const io: ServeIo = {
    input: {
      async read(buffer) {
        await watched.when(() => lines.length > 0 || ended);
        const next = lines.shift();
        if (next === undefined) return null;
        buffer.set(next);
        return next.length;
      },
    },
    output: {
      write(bytes) {
        stdout += decoder.decode(bytes);
        watched.changed();
        return Promise.resolve(bytes.length);
      },
    },
    stderr: (bytes) => {
      stderr += decoder.decode(bytes);
    },
  };
  return {
    io,
    send(message: unknown) {
      lines.push(encoder.encode(`${JSON.stringify(message)}\n`));
      watched.changed();
    },
    end() {
      ended = true;
      watched.changed();
    },
    /** The frame answering request `id`, once it is written. */
    async answer(id: number): Promise<Record<string, unknown>> {
      const find = () =>
        stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
          .find((frame) => frame.id === id);
      await watched.when(() => find() !== undefined);
      return find();
    },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** Fails when any 12 characters of TOKEN are in `text`. */
function noWindowOf(text: string, where: string): void {
  for (let i = 0; i + 12 <= TOKEN.length; i++) {
    assert.ok(!text.includes(TOKEN.slice(i, i + 12)), `${where} carries window ${i} of the token`);
  }
}

/**
 * Serve at debug level on stand-ins, with TOKEN held by the bridge's own custody, for `body`;
 * then stops it and puts the process's console and logging back as they were.
 */
async function serving(
  body: (serve: Serving, stdio: ReturnType<typeof standIns>) => Promise<void>,
): Promise<void> {
  const stdio = standIns();
  const console_ = { ...console };
  const serve = startServing({
    socket: { path: "/nonexistent/portreeve-stdio-test/portreeve.sock", source: "flag" },
    toolset: "full",
    logLevel: "debug",
  }, stdio.io);
  try {
    const { custody } = await serve.bridge.services();
    // timing-ok: an expiry an hour ahead, so custody holds it for the whole test
    custody.holdLease({ leaseId: "L1", token: TOKEN, expiresAt: Date.now() + 3_600_000 });
    await body(serve, stdio);
  } finally {
    stdio.end();
    await serve.done;
    Object.assign(console, console_);
    configureLogging("error", { scrub: (line) => line, write: () => {} });
  }
}

Deno.test("serve's guards: log lines at debug level never carry a held credential", async () => {
  await serving(async (_serve, stdio) => {
    logger("probe").debug("the daemon said {said}", { said: `token ${TOKEN} echoed` });
    await flushLogs();
    assert.match(stdio.stderr(), /"the daemon said /, "the line was written");
    assert.ok(stdio.stderr().includes(REDACTED), "masked, not dropped");
    noWindowOf(stdio.stderr(), "stderr");
  });
});

Deno.test("serve's guards: console output never carries a held credential", async () => {
  await serving(async (_serve, stdio) => {
    console.error(`a dependency printed ${TOKEN}`, { echoed: TOKEN });
    await Promise.resolve();
    assert.match(stdio.stderr(), /a dependency printed \[redacted\]/);
    noWindowOf(stdio.stderr(), "stderr");
    assert.equal(stdio.stdout(), "", "nothing on stdout but frames");
  });
});

Deno.test("serve's guards: a stdout frame never carries a held credential", async () => {
  await serving(async (_serve, stdio) => {
    stdio.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    stdio.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // Text no tool result carries: only the frame scrubber stands between it and stdout.
    stdio.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: TOKEN, arguments: {} },
    });
    const answer = await stdio.answer(2);
    assert.match(JSON.stringify(answer), /Unknown tool \\"\[redacted\]/);
    noWindowOf(stdio.stdout(), "stdout");
  });
});

Deno.test("serve's guards: a call refused unparsed is a tool error the host's way, not a JSON-RPC error", async () => {
  await serving(async (_serve, stdio) => {
    const tooDeep = "[".repeat(200) + "]".repeat(200);
    stdio.send({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "portreeve_health", arguments: { deep: JSON.parse(tooDeep) } },
    });
    const answer = await stdio.answer(7) as {
      error?: unknown;
      result?: { isError?: boolean; content: { text: string }[] };
    };
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.equal(answer.result?.isError, true, "flagged, as a host of no known name gets it");
    assert.match(answer.result!.content[0].text, /^portreeve_invalid_input \(not retryable\): /);
  });
});
