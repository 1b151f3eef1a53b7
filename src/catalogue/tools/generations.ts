/** Generations: prepared port allocations of a stack revision. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { generation, page, pageInput, uuid } from "../shapes.ts";
import { id, read } from "../daemon_calls.ts";
import { paginate, scopeOf } from "../pagination.ts";

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
  async call(ctx, { limit, afterCursor, ...filters }) {
    const all = await read(ctx, "/v1/stack-generations", filters) as Generation[];
    return paginate(all, (g) => [g.createdAt, g.id], {
      scope: scopeOf("generations", filters),
      limit,
      afterCursor,
    });
  },
  summary: ({ items, page }) =>
    `${items.length} generation(s)${
      items.length
        ? `: ${items.map((g) => `${g.id.slice(0, 8)} ${g.state}`).slice(0, 6).join(", ")}`
        : ""
    }${page.nextCursor ? "; more with afterCursor." : "."}`,
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
