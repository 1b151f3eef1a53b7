/** Generations: prepared port allocations of a stack revision. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { generation, page, pageInput, uuid } from "../shapes.ts";
import { id, read, readPage } from "../daemon_calls.ts";
import { pageSummary } from "../pagination.ts";

type Generation = z.output<typeof generation>;
const CAPS = ["stack-activations-v1"];

export const generationsList = defineTool({
  name: "portreeve_generations_list",
  title: "List generations",
  kind: "read",
  capabilities: CAPS,
  description: "List prepared generations, oldest first.",
  input: z.strictObject({
    ...pageInput,
    stackId: uuid().optional(),
    state: z.enum(["valid", "stale"]).optional(),
  }),
  output: page(generation),
  call: (ctx, input) =>
    readPage<Generation>(
      ctx,
      "/v1/stack-generations",
      "generations",
      input,
      (g) => [g.createdAt, g.id],
    ),
  summary: ({ items, page }) =>
    pageSummary("generation", items, page, (g) => `${g.id.slice(0, 8)} ${g.state}`),
});

export const generationGet = defineTool({
  name: "portreeve_generation_get",
  title: "Get a generation",
  kind: "read",
  capabilities: CAPS,
  description: "Read one generation: revision, state and the port of each published endpoint.",
  input: z.strictObject({ id: uuid() }),
  output: generation,
  call: async (ctx, input) =>
    await read(ctx, `/v1/stack-generations/${id(input.id)}`) as Generation,
  summary: (g) =>
    `Generation ${g.id.slice(0, 8)} is ${g.state}: ${
      g.endpoints.map((e) => `${e.component}.${e.endpoint}=${e.port}`).join(", ")
    }.`,
});
