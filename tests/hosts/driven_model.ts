/**
 * A fake model driven call by call from the test's side: `call(tool, args)` has the model make
 * that call on the host's next turn and resolves with the result as the model was shown it, so
 * a scenario written as plain awaits (the bench's result scenario, with its simulator steps
 * between calls) runs through a real host. A tool the host does not offer is skipped (null).
 */
import { type Dialect, FINAL_TEXT, ourToolName } from "./fake_model.ts";
import { startScriptedModel } from "./scripted_model.ts";

interface Pending {
  tool: string;
  args: Record<string, unknown>;
  shown: PromiseWithResolvers<string | null>;
}

export interface DrivenModel {
  url: string;
  /** Has the model call `tool`; the result as shown, or null when the host does not offer it. */
  call(tool: string, args: Record<string, unknown>): Promise<string | null>;
  /** The model ends the session with a final text on the next turn. */
  finish(): void;
  /** Fails every call still waiting (the host went away). */
  abort(error: Error): void;
  close(): Promise<void>;
}

export function startDrivenModel(dialect: Dialect): DrivenModel {
  const queue: (Pending | null)[] = [];
  let wake: (() => void) | null = null;
  const issued: Pending[] = [];
  let failed: Error | null = null;

  const next = async (): Promise<Pending | null> => {
    while (queue.length === 0) {
      if (failed !== null) throw failed;
      await new Promise<void>((resolve) => wake = resolve);
    }
    return queue.shift()!;
  };

  const model = startScriptedModel(async (request) => {
    if (!dialect.isTurn(request.path, request.body)) return null;
    const conversation = dialect.read(request.body);
    const seen = conversation.results.length;
    for (let i = 0; i < Math.min(seen, issued.length); i++) {
      issued[i].shown.resolve(conversation.results[i]);
    }
    // The host asked again for a turn it already had: the same call again.
    if (seen < issued.length) {
      const again = issued[seen];
      return dialect.toolCall(offeredName(again.tool)!, again.args, seen, request);
    }
    function offeredName(tool: string): string | undefined {
      return conversation.offered.find((name) => ourToolName(name) === tool);
    }
    for (;;) {
      const pending = await next();
      if (pending === null) return dialect.text(FINAL_TEXT, request);
      const name = offeredName(pending.tool);
      if (name === undefined) {
        pending.shown.resolve(null);
        continue;
      }
      issued.push(pending);
      return dialect.toolCall(name, pending.args, seen, request);
    }
  }, (request) => dialect.text("ok", request));

  const push = (item: Pending | null) => {
    queue.push(item);
    wake?.();
    wake = null;
  };

  return {
    url: model.url,
    call(tool, args) {
      const shown = Promise.withResolvers<string | null>();
      if (failed !== null) return Promise.reject(failed);
      push({ tool, args, shown });
      return shown.promise;
    },
    finish: () => push(null),
    abort(error) {
      failed = error;
      for (const item of [...issued, ...queue]) item?.shown.reject(error);
      wake?.();
      wake = null;
    },
    close: () => model.close(),
  };
}
