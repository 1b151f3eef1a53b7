/** Stacks family (read side): registered stacks, their documents, status and validation. */
import { INPUT_BOUNDS } from "../../shared/input_bounds.ts";
import { z } from "zod";
import { absolutePath, name128, nameFilter, pageInput, revision, uuid } from "../shapes.ts";
import {
  activation,
  documentIssue,
  generation,
  provider,
  snapshot,
  stack,
  stackDefinitionOut,
} from "../records.ts";
import { get, post, reads } from "../routes.ts";
import { pagedReadTool, readTool } from "../read_tool.ts";
import { Capability } from "../../daemon/capabilities.ts";

export const stacksList = pagedReadTool({
  name: "portreeve_stacks_list",
  title: "List stacks",
  detail: true,
  description: "Registered stacks.",
  input: z.strictObject({
    ...pageInput,
    project: nameFilter().optional(),
    stackRoot: absolutePath().optional(),
  }),
  item: stack,
  route: get("/v1/stacks", z.array(stack)),
  readWhole: "portreeve_stack_get (id)",
  id: (s) => s.id,
  // stack_get reads one stack's definition; a listing finds the stack.
  view: { rare: ["items[].definition", "items[].currentRevision"] },
});

export const stackGet = readTool({
  name: "portreeve_stack_get",
  title: "Get a stack",
  detail: true,
  description: "One stack with its definition.",
  input: z.strictObject({ id: uuid() }),
  route: get("/v1/stacks/{stackId}", stack),
  params: (input) => ({ stackId: input.id }),
});

const statusOutput = z.object({
  stack,
  generation: generation.nullable(),
  activation: activation.nullable(),
  providers: z.array(provider),
});

export const stackStatus = readTool({
  name: "portreeve_stack_status",
  title: "Stack status",
  detail: true,
  capabilities: [Capability.stackActivations],
  description: "A stack's generation, activation, live providers.",
  input: z.strictObject({ stackId: uuid() }),
  // Status is about what runs: the definition is stack_get's, each lease's id and time of change
  // the activation's record.
  view: {
    rare: [
      "stack.definition",
      "stack.currentRevision",
      "activation.endpoints[].leaseId",
      "activation.endpoints[].updatedAt",
    ],
  },
  route: post(
    "/v1/stacks/{stackId}/status",
    statusOutput,
    reads("takes fresh evidence of a stack's providers"),
  ),
});

const documentOutput = z.object({
  stackRoot: z.string(),
  stackRootName: z.string(),
  path: z.string(),
  kind: z.enum(["missing", "regular", "non-regular", "oversized"]),
  fingerprint: z.string().nullable(),
  definition: stackDefinitionOut.nullable(),
  revision: revision().nullable(),
  issues: z.array(documentIssue),
});

export const stackDocumentGet = readTool({
  name: "portreeve_stack_document_get",
  title: "Get stack document",
  description: "Parsed <stackRoot>/portreeve.stack.json.",
  input: z.strictObject({ stackRoot: absolutePath(true) }),
  route: get("/v1/stack-document", documentOutput),
  send: ({ stackRoot }) => ({ stackRoot }),
});

const validationOutput = z.object({
  valid: z.boolean(),
  definition: stackDefinitionOut.nullable(),
  revision: revision().nullable(),
  issues: z.array(documentIssue),
});

export const stackDefinitionValidate = readTool({
  name: "portreeve_stack_definition_validate",
  title: "Validate stack definition",
  capabilities: [Capability.mcpFoundations],
  description: "Normalise and check a definition.",
  // Any JSON value: reporting why a definition is wrong is this tool's job, so the daemon gets
  // to judge it. The tools that write (stack_apply_preview) keep the typed schema.
  anyJsonInputs: { definition: "definition" },
  input: z.strictObject({
    definition: z.unknown().refine((v) => v !== undefined, "required: any JSON value").refine(
      fitsStackFile,
      `must be at most ${INPUT_BOUNDS.definition.max} bytes as JSON (the daemon's stack file limit)`,
    ),
  }),
  route: post(
    "/v1/actions/stack-definition/validate",
    validationOutput,
    reads("checks a definition; touches no file"),
  ),
  send: ({ definition }) => ({ definition }),
});

/** Whether a definition's JSON could be a stack file (cheap before counting bytes). */
function fitsStackFile(definition: unknown): boolean {
  const json = JSON.stringify(definition) ?? "";
  const { max } = INPUT_BOUNDS.definition;
  return json.length * 3 <= max || new TextEncoder().encode(json).length <= max;
}

export const stackSnapshot = readTool({
  name: "portreeve_stack_snapshot",
  title: "Endpoint snapshot",
  capabilities: [Capability.stackDiscovery],
  description: "Addresses for containers: host = gatewayHost.",
  input: z.strictObject({
    activationId: uuid(),
    component: name128().refine((c) => c.trim() === c, "must not start or end with whitespace"),
    gatewayHost: z.string().min(1).max(255).refine(
      (h) => !/[\s/]/.test(h),
      "must contain no whitespace or '/'",
    ),
  }),
  route: post(
    "/v1/stack-activations/{activationId}/snapshot",
    snapshot,
    reads("builds a snapshot in memory; writes no file"),
  ),
  send: ({ component, gatewayHost }) => ({ component, gatewayHost }),
});
