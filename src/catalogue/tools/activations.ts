/** Activations (read side): a generation being started, running, or ended. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import {
  activation,
  ACTIVATION_STATES,
  name128,
  page,
  pageInput,
  resolution,
  uuid,
} from "../shapes.ts";
import { id, read, readByPost, readPage } from "../daemon_calls.ts";
import { pageSummary } from "../pagination.ts";

// Records arrive whole from the daemon; `createdAt` orders them even though not advertised.
type Activation = z.output<typeof activation> & { createdAt: string };
const CAPS = ["stack-activations-v1"];

export const activationsList = defineTool({
  name: "portreeve_activations_list",
  title: "List activations",
  kind: "read",
  capabilities: CAPS,
  description: "List stack activations, oldest first.",
  input: z.strictObject({
    ...pageInput,
    stackId: uuid().optional(),
    generationId: uuid().optional(),
    state: z.enum(ACTIVATION_STATES).optional(),
  }),
  output: page(activation),
  call: (ctx, input) =>
    readPage<Activation>(
      ctx,
      "/v1/stack-activations",
      "activations",
      input,
      (a) => [a.createdAt, a.id],
    ),
  summary: ({ items, page }) =>
    pageSummary("activation", items, page, (a) => `${a.id.slice(0, 8)} ${a.state}`),
});

export const activationGet = defineTool({
  name: "portreeve_activation_get",
  title: "Get an activation",
  kind: "read",
  capabilities: CAPS,
  description: "Read one activation: state, port and lease deadline of each endpoint.",
  input: z.strictObject({ id: uuid() }),
  output: activation,
  call: async (ctx, input) =>
    await read(ctx, `/v1/stack-activations/${id(input.id)}`) as Activation,
  summary: (a) =>
    `Activation ${a.id.slice(0, 8)} is ${a.state}: ${
      a.endpoints.map((e) => `${e.component}.${e.endpoint}=${e.port} ${e.state}`).join(", ")
    }.`,
});

export const activationResolve = defineTool({
  name: "portreeve_activation_resolve",
  title: "Resolve endpoints",
  kind: "read",
  capabilities: ["stack-discovery-v1"],
  description: "Addresses of a component's own endpoints and of its dependencies in an activation.",
  input: z.strictObject({ activationId: uuid(), component: name128() }),
  output: resolution,
  call: async (ctx, { activationId, component }) =>
    await readByPost(ctx, `/v1/stack-activations/${id(activationId)}/resolve`, {
      component,
    }) as z.input<typeof resolution>,
  summary: (r) =>
    `${r.component}: ${
      Object.entries(r.own).map(([name, e]) => `${name}=${e.host.host}:${e.host.port}`).join(
        ", ",
      ) || "no own endpoints"
    }; ${Object.keys(r.dependencies).length} dependency(ies).`,
});
