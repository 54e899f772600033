/**
 * Connection caps derived from the process's descriptor limit (docs/security.md). Each open connection holds a
 * descriptor, and so do sandboxes, files, logs and refused sockets still reading their 503; a cap above what the
 * process can open means accept() fails with EMFILE and every client, whatever its address, is turned away
 * (issue 21: at `ulimit -n 1500`, 1,800 trickling connections from one address locked everyone out). So the total
 * cap leaves a reserve of descriptors, and one address may hold at most a share of the total, so the rest is always
 * there for other addresses.
 */
import { readFileSync } from 'node:fs';

/** Descriptors kept out of the connection budget: a quarter of the limit, at least this many. */
const MIN_RESERVED_DESCRIPTORS = 128;
const RESERVED_FRACTION = 0.25;
/** One address may hold at most this share of the total cap. */
const ADDRESS_SHARE = 0.5;

export interface ConnectionCaps {
  /** Open connections in total: the setting, or the descriptor budget when that is smaller. */
  maxConnections: number;
  /** Open connections of one address: the setting, or its share of maxConnections when that is smaller. */
  maxConnectionsPerAddress: number;
  /** Refused sockets allowed to linger while their 503 is read; past it they are closed at once. */
  maxLingeringRefusals: number;
  /** The soft descriptor limit the caps were derived from; undefined when it could not be read (no /proc). */
  descriptorLimit: number | undefined;
}

export function connectionCaps(settings: { maxConnections: number; maxConnectionsPerAddress: number }, limit = descriptorLimit()): ConnectionCaps {
  const reserved = limit === undefined ? MIN_RESERVED_DESCRIPTORS : Math.max(MIN_RESERVED_DESCRIPTORS, Math.ceil(limit * RESERVED_FRACTION));
  const budget = limit === undefined ? settings.maxConnections : limit - reserved;
  const maxConnections = Math.max(2, Math.min(settings.maxConnections, budget));
  return {
    maxConnections,
    maxConnectionsPerAddress: Math.max(1, Math.min(settings.maxConnectionsPerAddress, Math.floor(maxConnections * ADDRESS_SHARE))),
    maxLingeringRefusals: Math.max(8, Math.floor(reserved / 4)),
    descriptorLimit: limit,
  };
}

/** The soft RLIMIT_NOFILE of this process, from /proc/self/limits (Linux); undefined elsewhere or when unlimited. */
export function descriptorLimit(): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
