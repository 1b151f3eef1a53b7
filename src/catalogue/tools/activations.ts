/** Activations (read side): a generation being started, running, or ended. */
import { z } from "zod";
import { name128, page, pageInput, uuid } from "../shapes.ts";
import { activation, ACTIVATION_STATES, resolution } from "../records.ts";
import { get, post, reads } from "../routes.ts";
import { readTool } from "../read_tool.ts";
import { defineTool } from "../define.ts";
import { pageQuery, readPage } from "../daemon_calls.ts";
import { Capability } from "../../daemon/capabilities.ts";

const CAPS = [Capability.stackActivations];

const listActivations = get("/v1/stack-activations", z.array(activation));

export const activationsList = defineTool({
  name: "portreeve_activations_list",
  title: "List activations",
  detail: true,
  kind: "read",
  capabilities: CAPS,
  description: "Stack activations.",
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
      (a) => a.id,
      "portreeve_activation_get (id)",
    ),
});

export const activationGet = readTool({
  name: "portreeve_activation_get",
  title: "Get an activation",
  detail: true,
  capabilities: CAPS,
  description: "One activation.",
  input: z.strictObject({ id: uuid() }),
  route: get("/v1/stack-activations/{activationId}", activation),
  params: (input) => ({ activationId: input.id }),
});

export const activationResolve = readTool({
  name: "portreeve_activation_resolve",
  title: "Resolve endpoints",
  capabilities: [Capability.stackDiscovery],
  description: "A component's endpoint and dependency addresses.",
  input: z.strictObject({ activationId: uuid(), component: name128() }),
  route: post(
    "/v1/stack-activations/{activationId}/resolve",
    resolution,
    reads("resolves endpoint addresses"),
  ),
  send: ({ component }) => ({ component }),
});
