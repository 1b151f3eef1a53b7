/**
 * How custody renews what it holds: the daemon's renew routes, through the same client as
 * every tool. Errors keep their `code` and `retryable`, which custody uses to tell a daemon
 * that is briefly away (keep the credential, retry) from a lease that is gone (erase it).
 */
import type { Renewers } from "../custody/mod.ts";
import type { DaemonClient } from "../daemon/client.ts";
import { id } from "./daemon_calls.ts";

export interface LauncherRenewalResult {
  deadlineAt: number;
  renewAfterMilliseconds: number;
  operation: Record<string, unknown>;
}

export function daemonRenewers(daemon: DaemonClient): Renewers<LauncherRenewalResult> {
  return {
    async renewLease(leaseId, token, signal) {
      const data = await daemon.post(`/v1/leases/${id(leaseId)}/renew`, { leaseToken: token }, {
        signal,
        capabilities: ["two-phase-allocation-v1"],
      }) as { expiresAt: string };
      return { expiresAt: Date.parse(data.expiresAt) };
    },
    async renewActivation(activationId, leases, signal) {
      const data = await daemon.post(`/v1/stack-activations/${id(activationId)}/renew`, {
        leases: leases.map((l) => ({ leaseId: l.leaseId, leaseToken: l.token })),
      }, { signal, capabilities: ["stack-activations-v1"] }) as {
        leases: { leaseId: string; expiresAt: string }[];
      };
      return {
        leases: data.leases.map((l) => ({
          leaseId: l.leaseId,
          expiresAt: Date.parse(l.expiresAt),
        })),
      };
    },
    async renewLauncher(operationId, credential, signal) {
      const data = await daemon.post(`/v1/launcher-operations/${id(operationId)}/renew`, {
        credential,
      }, {
        signal,
        capabilities: ["launcher-operations-v1"],
      }) as { operation: { deadlineAt: string }; renewAfterMilliseconds: number };
      return {
        deadlineAt: Date.parse(data.operation.deadlineAt),
        renewAfterMilliseconds: data.renewAfterMilliseconds,
        operation: data.operation,
      };
    },
  };
}
