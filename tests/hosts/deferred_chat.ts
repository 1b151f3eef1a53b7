/**
 * Chat Completions with deferred MCP tools, as Qwen Code 0.24 sends them by default: the model
 * is offered `tool_search` and `tool_call`, and a reminder in the conversation lists every
 * deferred tool as `- "mcp__portreeve__<tool>": "<description>"`. The fake model behaves as a
 * model must there: before its first call of a tool it asks `tool_search` for that tool's
 * schema (`select:<name>`), then calls it through `tool_call {name, arguments}`. The searches
 * are the host's own bridge, so their results are left out of the scenario's results; what the
 * model was first offered of ours is the reminder's line for each tool.
 */
import { chatToolCall, openaiChat } from "./chat_completions.ts";
import { type Conversation, type Dialect, isRecord, ourToolName, records } from "./fake_model.ts";

const SEARCH = "tool_search";
const CALL = "tool_call";

/** Every `- "name": "description"` line of the reminders, for tools of ours. */
function announced(body: unknown): Map<string, string> {
  const lines = new Map<string, string>();
  for (const message of isRecord(body) ? records(body.messages) : []) {
    const parts = typeof message.content === "string"
      ? [message.content]
      : records(message.content).map((part) => typeof part.text === "string" ? part.text : "");
    for (const text of parts) {
      for (const [line, name] of text.matchAll(/^- "([^"]+)": "(?:[^"\\]|\\.)*"$/gm)) {
        if (ourToolName(name) !== null) lines.set(name, line);
      }
    }
  }
  return lines;
}

interface BridgeCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** The assistant's earlier calls of the host's search and call tools. */
function bridgeCalls(body: unknown): BridgeCall[] {
  const calls: BridgeCall[] = [];
  for (const message of isRecord(body) ? records(body.messages) : []) {
    for (const call of records(message.tool_calls)) {
      const fn = isRecord(call.function) ? call.function : {};
      if (typeof call.id !== "string" || typeof fn.name !== "string") continue;
      let args: unknown = {};
      try {
        args = JSON.parse(typeof fn.arguments === "string" ? fn.arguments : "{}");
      } catch {
        // Not ours to judge: an unreadable argument string is simply no search.
      }
      calls.push({ id: call.id, name: fn.name, args: isRecord(args) ? args : {} });
    }
  }
  return calls;
}

/** Names whose schemas a `select:` search has already fetched. */
function searched(body: unknown): Set<string> {
  const names = new Set<string>();
  for (const call of bridgeCalls(body)) {
    const query = call.name === SEARCH ? call.args.query : undefined;
    if (typeof query !== "string" || !query.startsWith("select:")) continue;
    for (const name of query.slice("select:".length).split(",")) names.add(name.trim());
  }
  return names;
}

export const deferredChat: Dialect = {
  isTurn: (path, body) =>
    path.endsWith("/chat/completions") && announced(body).size > 0 &&
    openaiChat.read(body).offered.includes(CALL),
  read(body): Conversation {
    const base = openaiChat.read(body);
    const lines = announced(body);
    const searchIds = new Set(
      bridgeCalls(body).filter((call) => call.name === SEARCH).map((call) => call.id),
    );
    const messages = isRecord(body) ? records(body.messages) : [];
    const results = messages
      .filter((message) => message.role === "tool" && !searchIds.has(String(message.tool_call_id)))
      .map((message) =>
        typeof message.content === "string"
          ? message.content
          : records(message.content).map((part) => String(part.text ?? "")).join("")
      );
    const definitions = new Map<string, unknown>();
    for (const [name, line] of lines) definitions.set(ourToolName(name)!, line);
    return { offered: [...base.offered, ...lines.keys()], definitions, results };
  },
  toolCall(name, args, turn, request) {
    if (!searched(request.body).has(name)) {
      return chatToolCall(request.body, SEARCH, { query: `select:${name}` }, `search_${turn}`);
    }
    return chatToolCall(request.body, CALL, { name, arguments: args }, `call_${turn}`);
  },
  text: (text, request) => openaiChat.text(text, request),
};
