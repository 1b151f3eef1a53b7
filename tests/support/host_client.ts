/**
 * The MCP client the tests play the host with. The SDK gives each request a deadline of its own
 * (60 s unless told otherwise) and a busy machine can take longer than that over a call that is
 * only slow, so a slow answer would fail a test. This host waits as long as the bridge takes,
 * as hosts should: a bridge that never answers is found by the bridge's own bounds, by its
 * process ending (the transport closes, which rejects every pending request) or by CI's time
 * limit, never by a clock in the test. `tests/unit/repo/timing_test.ts` refuses the SDK's
 * `Client` anywhere else under tests/.
 */
import {
  Client,
  type ConnectOptions,
  type Request,
  type RequestMethod,
  type RequestOptions,
  type ResultTypeMap,
  type StandardSchemaV1,
  type Transport,
} from "@modelcontextprotocol/client";

/** The longest a timer can be set (about 24.8 days): no deadline a test can reach. */
export const HOST_WAITS = 2 ** 31 - 1;

/** `options` with `HOST_WAITS` as its timeout unless it names one. */
export function waiting<O extends RequestOptions>(options?: O): O & { timeout: number } {
  return { ...options, timeout: options?.timeout ?? HOST_WAITS } as O & { timeout: number };
}

/** A result schema (the SDK's own test: a Standard Schema carries `~standard`). */
function isSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === "object" && value !== null && "~standard" in value;
}

export class HostClient extends Client {
  override request<M extends RequestMethod>(
    request: { method: M; params?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<ResultTypeMap[M]>;
  override request<T extends StandardSchemaV1>(
    request: Request,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<StandardSchemaV1.InferOutput<T>>;
  // Every request the SDK's own methods make (callTool, listTools, initialize…) comes here.
  override request(
    request: Request,
    second?: StandardSchemaV1 | RequestOptions,
    third?: RequestOptions,
  ): Promise<unknown> {
    if (isSchema(second)) return super.request(request, second, waiting(third));
    return super.request(request as { method: RequestMethod }, waiting(second));
  }

  /** The handshake (and a 2026-07-28 probe, which takes the connect's timeout) waits too. */
  override connect(transport: Transport, options?: ConnectOptions): Promise<void> {
    return super.connect(transport, waiting(options));
  }
}
