/**
 * The OpenAI Chat Completions dialect, which OpenCode (its openai-compatible provider), Qwen
 * Code, GitHub Copilot CLI (BYOK) and Cline speak to a custom endpoint: tools as
 * `{type: "function", function: {name, …}}`, results as `role: "tool"` messages, answers
 * streamed as `chat.completion.chunk` events ending in `data: [DONE]` (or one JSON object when
 * the request does not ask for a stream).
 */
import { type Conversation, type Dialect, isRecord, ourToolName, records } from "./fake_model.ts";

function functionName(tool: Record<string, unknown>): unknown {
  return isRecord(tool.function) ? tool.function.name : undefined;
}

function toolsOf(body: unknown): Record<string, unknown>[] {
  return isRecord(body) ? records(body.tools) : [];
}

/** A tool message's content as the model reads it: a string, or its text parts joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return records(content).map((part) => typeof part.text === "string" ? part.text : "").join("");
}

export const openaiChat: Dialect = {
  isTurn: (path, body) =>
    path.endsWith("/chat/completions") &&
    toolsOf(body).some((tool) => {
      const name = functionName(tool);
      return typeof name === "string" && ourToolName(name) !== null;
    }),
  read(body): Conversation {
    const offered: string[] = [];
    const definitions = new Map<string, unknown>();
    for (const tool of toolsOf(body)) {
      const name = functionName(tool);
      if (typeof name !== "string") continue;
      offered.push(name);
      const ours = ourToolName(name);
      if (ours !== null) definitions.set(ours, tool);
    }
    const messages = isRecord(body) ? records(body.messages) : [];
    const results = messages.filter((message) => message.role === "tool")
      .map((message) => contentText(message.content));
    return { offered, definitions, results };
  },
  toolCall: (name, args, turn, request) => chatToolCall(request.body, name, args, `call_${turn}`),
  text: (text, request) => chatReply(request.body, { content: text }, "stop"),
};

/** An answer that calls `name` with `args` under the call id `id`. */
export function chatToolCall(
  body: unknown,
  name: string,
  args: Record<string, unknown>,
  id: string,
): Response {
  return chatReply(body, {
    tool_calls: [{
      index: 0,
      id,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    }],
  }, "tool_calls");
}

const USAGE = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };

function chatReply(
  body: unknown,
  message: Record<string, unknown>,
  finish: "stop" | "tool_calls",
): Response {
  const model = isRecord(body) && typeof body.model === "string" ? body.model : "fake-model";
  const base = { id: "chatcmpl_fake", created: 0, model };
  if (!isRecord(body) || body.stream !== true) {
    return Response.json({
      ...base,
      object: "chat.completion",
      choices: [{
        index: 0,
        message: { role: "assistant", content: null, ...message },
        finish_reason: finish,
      }],
      usage: USAGE,
    });
  }
  const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `data: ${
      JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [choice], ...extra })
    }\n\n`;
  const text = chunk({ index: 0, delta: { role: "assistant", ...message }, finish_reason: null }) +
    chunk({ index: 0, delta: {}, finish_reason: finish }, { usage: USAGE }) +
    "data: [DONE]\n\n";
  return new Response(text, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}
