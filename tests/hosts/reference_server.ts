/**
 * The reference bridge's catalogue served over stdio, for measuring what a host sends its model
 * for it through the same path as ours: its recorded tool names and input schemas, with each
 * description and the server instructions replaced by neutral filler of the recorded length
 * (the fixture keeps no prose). The hosts send the model names, descriptions and input schemas
 * only, so the bytes match the reference's. Tools cannot be called.
 *
 * The suite bundles it (`referenceServerBundle`), so a host in a throwaway home starts it with no
 * module cache.
 */
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

/** `length` ASCII characters of words, so a host's search ranks no tool by its filler. */
export function filler(length: number): string {
  return "lorem ipsum ".repeat(Math.ceil(length / 12)).slice(0, length);
}

export const REFERENCE_CATALOGUE = fixture.parse(recorded);

if (import.meta.main) {
  const catalogue = REFERENCE_CATALOGUE;
  const tools = catalogue.tools.map((tool) => ({
    name: tool.name,
    description: filler(tool.descriptionLength),
    inputSchema: tool.inputSchema,
  }));
  serveStdio(() => {
    const server = new Server({ name: "portreeve", version: "0.1.0" }, {
      capabilities: { tools: {} },
      instructions: filler(catalogue.instructionsLength),
    });
    server.setRequestHandler("tools/list", () => ({ tools }));
    return server;
  }, { legacy: "serve" });
}
