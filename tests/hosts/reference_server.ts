/**
 * The reference bridge's catalogue served over stdio, for measuring what a host sends its model
 * for it through the same path as ours: its recorded tool names, input schemas, annotations and
 * output schemas, with each description, title and the server instructions replaced by neutral
 * filler of the recorded length (the fixtures keep no prose). Hosts put names, descriptions,
 * input schemas and (Codex's code mode) output schemas before the model, so the bytes match the
 * reference's.
 *
 * `--extras FILE` (reference-tool-extras.jsonl) adds titles, annotations and output schemas;
 * `--replay FILE` (reference-session.jsonl) answers each tools/call with the result the
 * reference gave the same call in its recorded session (first unused record with this tool and
 * these arguments), so a host shows its model the reference's own results. Without `--replay`,
 * tools cannot be called. The files are read at start (the host starts it with `--allow-read`
 * for them).
 *
 * The suite bundles it (`referenceServerBundle`), so a host in a throwaway home starts it with no
 * module cache.
 */
import { parseArgs } from "node:util";
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import recorded from "../fixtures/reference-catalogue.json" with { type: "json" };

const fixture = z.object({
  instructionsLength: z.int(),
  tools: z.array(z.object({
    name: z.string(),
    descriptionLength: z.int(),
    inputSchema: z.looseObject({ type: z.literal("object") }),
  })),
});

const extra = z.object({
  name: z.string(),
  titleLength: z.int(),
  annotations: z.record(z.string(), z.boolean()),
  outputSchema: z.looseObject({ type: z.literal("object") }),
});

/** One recorded call of the reference session and its result. */
export const replayed = z.object({
  seq: z.union([z.int(), z.literal("daemon-down")]),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** Present when the text block was exactly its JSON. */
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  /** The text block, when it was anything else. */
  text: z.string().optional(),
  isError: z.literal(true).optional(),
});
export type Replayed = z.infer<typeof replayed>;

/** The reference session's header line: the paths its results name. */
export const sessionHeader = z.object({
  source: z.string(),
  socketPath: z.string(),
  workspace: z.string(),
  stackRoot: z.string(),
  daemonDownSocketPath: z.string(),
});

/** `length` ASCII characters of words, so a host's search ranks no tool by its filler. */
export function filler(length: number): string {
  return "lorem ipsum ".repeat(Math.ceil(length / 12)).slice(0, length);
}

export const REFERENCE_CATALOGUE = fixture.parse(recorded);

/** The lines of a JSON Lines fixture after its header, each checked against `schema`. */
export function jsonLines<T>(text: string, schema: z.ZodType<T>): T[] {
  return text.split("\n").slice(1).filter((line) => line.trim() !== "")
    .map((line) => schema.parse(JSON.parse(line)));
}

/** The MCP result of a recorded call, whole: text block and structuredContent as recorded. */
export function recordedResult(call: Replayed): {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
} {
  const text = call.text ?? JSON.stringify(call.structuredContent);
  return {
    content: [{ type: "text", text }],
    ...(call.structuredContent === undefined ? {} : { structuredContent: call.structuredContent }),
    ...(call.isError ? { isError: true } : {}),
  };
}

/** Canonical JSON (sorted keys), so arguments match whatever order a host sends them in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { extras: { type: "string" }, replay: { type: "string" } },
  });
  const extras = new Map(
    values.extras === undefined
      ? []
      : jsonLines(await Deno.readTextFile(values.extras), extra).map((e) => [e.name, e]),
  );
  const session = values.replay === undefined
    ? []
    : jsonLines(await Deno.readTextFile(values.replay), replayed);
  const used = new Set<number>();
  const catalogue = REFERENCE_CATALOGUE;
  const tools = catalogue.tools.map((tool) => {
    const more = extras.get(tool.name);
    return {
      name: tool.name,
      ...(more === undefined ? {} : { title: filler(more.titleLength) }),
      description: filler(tool.descriptionLength),
      inputSchema: tool.inputSchema,
      ...(more === undefined ? {} : { annotations: more.annotations }),
      ...(more === undefined ? {} : { outputSchema: more.outputSchema }),
    };
  });
  serveStdio(() => {
    const server = new Server({ name: "portreeve", version: "0.1.0" }, {
      capabilities: { tools: {} },
      instructions: filler(catalogue.instructionsLength),
    });
    server.setRequestHandler("tools/list", () => ({ tools }));
    server.setRequestHandler("tools/call", (request) => {
      const { name } = request.params;
      const args = canonical(request.params.arguments ?? {});
      const at = session.findIndex((call, index) =>
        !used.has(index) && call.tool === name && canonical(call.arguments) === args
      );
      if (at < 0) {
        return {
          content: [{ type: "text", text: `no recorded call of ${name} with ${args}` }],
          isError: true,
        };
      }
      used.add(at);
      return recordedResult(session[at]);
    });
    return server;
  }, { legacy: "serve" });
}
