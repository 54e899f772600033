/**
 * Explicit handles (POST /v1/sandboxes): a set of lazy sandboxes keyed by an id in the URL path (`hdl_...`)
 * rather than by MCP session, so sessionless 2026-era clients and clients behind a plain load balancer keep one
 * sandbox across calls. Not a backend's SandboxHandle (sandbox/provider.ts, one live sandbox, `sbx_...`): a
 * handle holds up to one sandbox per kind, leased on demand. Each handle belongs to the principal that created
 * it; others get "not found", so ids leak nothing.
 */
import { newId } from '../core/ids.js';
import type { ToolCatalogEntry } from './tool-catalog.js';
import type { LazySandboxes } from './lazy-sandboxes.js';

/** Distinct from the backends' `sbx_` sandbox ids, so a log line or a URL says which of the two it names. */
export const HANDLE_ID_PREFIX = 'hdl';

export interface HandleRecord<Extra> {
  readonly id: string;
  readonly entry: ToolCatalogEntry;
  readonly principal: string;
  readonly sandboxes: LazySandboxes;
  readonly createdAtMs: number;
  /** This handle's own idle TTL (POST /v1/sandboxes ttl_ms); undefined: the host's. */
  readonly idleTtlMs: number | undefined;
  /** Whatever the host keeps per handle (its MCP HTTP handler and fast path). */
  readonly extra: Extra;
}

export class HandleStore<Extra> {
  private readonly records = new Map<string, HandleRecord<Extra>>();

  constructor(private readonly dispose: (record: HandleRecord<Extra>) => Promise<void>) {}

  get size(): number {
    return this.records.size;
  }

  /** Live handles of one principal, for its quota. */
  countOwnedBy(principal: string): number {
    let count = 0;
    for (const record of this.records.values()) if (record.principal === principal) count++;
    return count;
  }

  /** Live handles of one principal, oldest first. */
  listOwnedBy(principal: string): HandleRecord<Extra>[] {
    return [...this.records.values()].filter((record) => record.principal === principal);
  }

  add(entry: ToolCatalogEntry, principal: string, sandboxes: LazySandboxes, makeExtra: (id: string) => Extra, idleTtlMs?: number): HandleRecord<Extra> {
    const id = newId(HANDLE_ID_PREFIX);
    const record = { id, entry, principal, sandboxes, createdAtMs: Date.now(), idleTtlMs, extra: makeExtra(id) };
    this.records.set(id, record);
    return record;
  }

  /** The handle, or undefined when it does not exist, has been released, or belongs to another principal. */
  get(id: string, principal: string): HandleRecord<Extra> | undefined {
    const record = this.records.get(id);
    return record && record.principal === principal ? record : undefined;
  }

  /** Releases the handle's sandboxes. Resolves false when there was nothing (visible to this principal) to remove. */
  async remove(id: string, principal: string): Promise<boolean> {
    const record = this.get(id, principal);
    if (!record) return false;
    this.records.delete(id);
    await this.dispose(record);
    return true;
  }

  /** Releases handles unused for their idle TTL (idleMs unless the handle has its own); returns how many. */
  async expireIdle(idleMs: number): Promise<number> {
    const idle = [...this.records.values()].filter((record) => record.sandboxes.idleFor(record.idleTtlMs ?? idleMs));
    for (const record of idle) this.records.delete(record.id);
    await Promise.all(idle.map((record) => this.dispose(record)));
    return idle.length;
  }

  async closeAll(): Promise<void> {
    const all = [...this.records.values()];
    this.records.clear();
    await Promise.all(all.map((record) => this.dispose(record)));
  }
}
