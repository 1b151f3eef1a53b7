/** Activations (read side): a generation being started, running, or ended. */
import { z } from "zod";
import {
  activation,
  ACTIVATION_STATES,
  name128,
  page,
  pageInput,
  resolution,
  timestamp,
  uuid,
} from "../shapes.ts";
import { get, post, reads } from "../routes.ts";
import { readTool } from "../read_tool.ts";
import { defineTool } from "../define.ts";
import { pageQuery, readPage } from "../daemon_calls.ts";
import { Capability } from "../../daemon/capabilities.ts";
import { pageSummary } from "../../results/pagination.ts";

const CAPS = [Capability.stackActivations];

// Listed activations carry `createdAt`, which orders the pages though the output omits it.
const listActivations = get(
  "/v1/stack-activations",
  z.array(activation.extend({ createdAt: timestamp() })),
);

export const activationsList = defineTool({
  name: "portreeve_activations_list",
  title: "List activations",
  detail: true,
  kind: "read",
  capabilities: CAPS,
  description: "Stack activations, oldest first.",
  input: z.strictObject({
    ...pageInput,
    stackId: uuid().optional(),
    generationId: uuid().optional(),
    state: z.enum(ACTIVATION_STATES).optional(),
  }),
  output: page(activation),
  routes: [listActivations],
  call: (ctx, input) =>
    readPage(
      ctx,
      listActivations,
      "portreeve_activations_list",
      pageQuery(input),
      (a) => [a.createdAt, a.id],
      "portreeve_activation_get (id)",
    ),
  summary: ({ items, page }) =>
    pageSummary("activation", items, page, (a) => `${a.id.slice(0, 8)} ${a.state}`),
});

export const activationGet = readTool({
  name: "portreeve_activation_get",
  title: "Get an activation",
  detail: true,
  capabilities: CAPS,
  description: "One activation: state and each endpoint's port and lease expiry.",
  input: z.strictObject({ id: uuid() }),
  route: get("/v1/stack-activations/{activationId}", activation),
  params: (input) => ({ activationId: input.id }),
  summary: (a) =>
    `Activation ${a.id.slice(0, 8)} is ${a.state}: ${
      a.endpoints.map((e) => `${e.component}.${e.endpoint}=${e.port} ${e.state}`).join(", ")
    }.`,
});

export const activationResolve = readTool({
  name: "portreeve_activation_resolve",
  title: "Resolve endpoints",
  capabilities: [Capability.stackDiscovery],
  description: "Addresses of a component's own endpoints and its dependencies.",
  input: z.strictObject({ activationId: uuid(), component: name128() }),
  route: post(
    "/v1/stack-activations/{activationId}/resolve",
    resolution,
    reads("resolves endpoint addresses"),
  ),
  send: ({ component }) => ({ component }),
  summary: (r) =>
    `${r.component}: ${
      Object.entries(r.own).map(([name, e]) => `${name}=${e.host.host}:${e.host.port}`).join(
        ", ",
      ) || "no own endpoints"
    }; ${Object.keys(r.dependencies).length} dependency(ies).`,
});
