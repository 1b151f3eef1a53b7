/** The three model APIs the hosts speak, as far as the fake model needs them. */
import {
  type Conversation,
  type Dialect,
  isRecord,
  ourToolName,
  records,
  responsesStream,
  sse,
} from "./fake_model.ts";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return records(content).map((part) => typeof part.text === "string" ? part.text : "").join(
    "",
  );
}

function collect(
  tools: Record<string, unknown>[],
  nameOf: (tool: Record<string, unknown>) => unknown,
): Pick<Conversation, "offered" | "definitions"> {
  const offered: string[] = [];
  const definitions = new Map<string, unknown>();
  for (const tool of tools) {
    const name = nameOf(tool);
    if (typeof name !== "string") continue;
    offered.push(name);
    const ours = ourToolName(name);
    if (ours !== null) definitions.set(ours, tool);
  }
  return { offered, definitions };
}

function offersOurs(tools: Record<string, unknown>[], key = "name"): boolean {
  return tools.some((tool) => typeof tool[key] === "string" && ourToolName(tool[key]) !== null);
}

/** Anthropic Messages API (Claude Code), streamed or not. */
export const anthropic: Dialect = {
  isTurn: (path, body) =>
    path.endsWith("/v1/messages") && isRecord(body) && offersOurs(records(body.tools)),
  read(body) {
    const request = isRecord(body) ? body : {};
    const results: string[] = [];
    for (const message of records(request.messages)) {
      for (const block of records(message.content)) {
        if (block.type === "tool_result") results.push(textOf(block.content));
      }
    }
    return { ...collect(records(request.tools), (tool) => tool.name), results };
  },
  toolCall: (name, args, turn, request) =>
    anthropicReply(request.body, { type: "tool_use", id: `toolu_${turn}`, name, input: args }),
  text: (text, request) => anthropicReply(request.body, { type: "text", text }),
};

function anthropicReply(body: unknown, block: Record<string, unknown>): Response {
  const model = isRecord(body) && typeof body.model === "string" ? body.model : "fake";
  const stop = block.type === "tool_use" ? "tool_use" : "end_turn";
  const usage = { input_tokens: 1, output_tokens: 1 };
  const message = { id: "msg_fake", type: "message", role: "assistant", model, usage };
  if (!isRecord(body) || body.stream !== true) {
    return Response.json({ ...message, content: [block], stop_reason: stop, stop_sequence: null });
  }
  const opening = block.type === "tool_use" ? { ...block, input: {} } : { ...block, text: "" };
  const delta = block.type === "tool_use"
    ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
    : { type: "text_delta", text: block.text };
  return sse([
    ["message_start", {
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, stop_sequence: null },
    }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: opening }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 1 },
    }],
    ["message_stop", { type: "message_stop" }],
  ]);
}

/** OpenAI Responses API (Codex), always streamed. */
export const openaiResponses: Dialect = {
  isTurn: (path, body) =>
    path.endsWith("/responses") && isRecord(body) && offersOurs(flatTools(body.tools)),
  read(body) {
    const request = isRecord(body) ? body : {};
    const results = records(request.input)
      .filter((item) => item.type === "function_call_output")
      .map((item) => textOf(item.output));
    const nameOf = (tool: Record<string, unknown>) => qualifiedNames.get(tool) ?? tool.name;
    return { ...collect(flatTools(request.tools), nameOf), results };
  },
  toolCall: (offered, args, turn) => {
    const [namespace, name] = offered.includes(":") ? offered.split(":") : [null, offered];
    return responsesStream({
      type: "function_call",
      id: `fc_${turn}`,
      call_id: `call_${turn}`,
      ...(namespace === null ? {} : { namespace }),
      name,
      arguments: JSON.stringify(args),
      status: "completed",
    });
  },
  text: (text) =>
    responsesStream({
      type: "message",
      id: "msg_fake",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    }),
};

/**
 * Codex groups a server's tools in a namespace (`mcp__portreeve`); a call names both. The
 * inner definitions stay as sent (they are what gets measured); their `namespace:name` is kept
 * aside.
 */
const qualifiedNames = new WeakMap<Record<string, unknown>, string>();

function flatTools(value: unknown): Record<string, unknown>[] {
  return records(value).flatMap((tool) => {
    if (tool.type !== "namespace" || typeof tool.name !== "string") return [tool];
    const namespace = tool.name;
    return records(tool.tools).map((inner) => {
      qualifiedNames.set(inner, `${namespace}:${String(inner.name)}`);
      return inner;
    });
  });
}

/** Gemini generateContent / streamGenerateContent (Gemini CLI). */
export const gemini: Dialect = {
  isTurn: (path, body) =>
    /:(stream)?[gG]enerateContent$/.test(path) && isRecord(body) &&
    offersOurs(geminiDeclarations(body)),
  read(body) {
    const request = isRecord(body) ? body : {};
    const results: string[] = [];
    for (const content of records(request.contents)) {
      for (const part of records(content.parts)) {
        const response = part.functionResponse;
        if (isRecord(response)) results.push(geminiResultText(response.response));
      }
    }
    return { ...collect(geminiDeclarations(request), (tool) => tool.name), results };
  },
  toolCall: (name, args, _turn, request) =>
    geminiReply(request.path, { functionCall: { name, args } }),
  text: (text, request) => geminiReply(request.path, { text }),
};

/** Gemini CLI hands the model `{output: text}` or `{error: text}`; anything else as JSON. */
function geminiResultText(response: unknown): string {
  if (isRecord(response)) {
    if (typeof response.output === "string") return response.output;
    if (typeof response.error === "string") return response.error;
  }
  return JSON.stringify(response ?? null);
}

function geminiDeclarations(body: Record<string, unknown>): Record<string, unknown>[] {
  return records(body.tools).flatMap((tool) => records(tool.functionDeclarations));
}

function geminiReply(path: string, part: Record<string, unknown>): Response {
  const chunk = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: "fake",
  };
  return path.endsWith(":streamGenerateContent") ? sse([[null, chunk]]) : Response.json(chunk);
}
