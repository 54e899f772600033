/**
 * Which model endpoints a shared server may connect to on a client's behalf (POST /v1/rollouts names its own
 * base_url, so without a policy a client could make the server probe its internal network). The check is on
 * the RESOLVED address, both before a run (a clear 400) and inside the connection's own DNS lookup, so a name
 * that re-resolves to 127.0.0.1 between the two (DNS rebinding) is still caught.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { CorralError } from '../../../core/errors.js';
import type { ConnectionGuard } from './model-http-client.js';

export interface ModelEndpointPolicyOptions {
  /**
   * Hosts (exact names, case-insensitive), addresses or CIDRs ("10.0.0.0/8", "fd00::/8") that model endpoints
   * may be on. Empty: any host whose addresses are not refused below. Non-empty: only these.
   */
  allow: readonly string[];
  /** Refuse loopback, link-local (with the 169.254.169.254 metadata address) and unspecified addresses unless allowed explicitly. */
  refuseInternal: boolean;
}

/** Addresses that reach the server's own machine or its cloud metadata service. */
const INTERNAL = new BlockList();
INTERNAL.addSubnet('127.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, including 169.254.169.254 (cloud metadata)
INTERNAL.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network": 0.0.0.0 connects to the local machine
INTERNAL.addAddress('::1', 'ipv6');
INTERNAL.addAddress('::', 'ipv6');
INTERNAL.addSubnet('fe80::', 10, 'ipv6');
INTERNAL.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();

export class ModelEndpointPolicy implements ConnectionGuard {
  private readonly allowedHosts = new Set<string>();
  private readonly allowedAddresses = new BlockList();
  private readonly allowAll: boolean;

  constructor(private readonly options: ModelEndpointPolicyOptions) {
    this.allowAll = options.allow.length === 0;
    for (const entry of options.allow) {
      const [address, prefix, extra] = entry.trim().split('/');
      if (extra !== undefined || !address) throw invalidEntry(entry);
      if (isIP(address) === 0) {
        if (prefix !== undefined || !/^[a-z0-9.-]+$/i.test(address)) throw invalidEntry(entry);
        this.allowedHosts.add(bare(address));
        continue;
      }
      const bits = prefix === undefined ? (isIP(address) === 6 ? 128 : 32) : Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > (isIP(address) === 6 ? 128 : 32)) throw invalidEntry(entry);
      this.allowedAddresses.addSubnet(address, bits, family(address));
    }
  }

  /** Why `address` (what `hostname` resolved to) may not be connected to, or null when it may. */
  refusal(hostname: string, address: string): string | null {
    if (this.allowedHosts.has(bare(hostname)) || this.allowedAddresses.check(address, family(address))) return null;
    if (!this.allowAll) return 'it is not in server.modelEndpointAllowlist';
    if (this.options.refuseInternal && INTERNAL.check(address, family(address)))
      return 'loopback, link-local and unspecified addresses are refused on a server bound beyond 127.0.0.1 (server.modelEndpointAllowlist can allow them)';
    return null;
  }

  /** Throws MODEL_ERR_ENDPOINT_REFUSED when any address `url`'s host resolves to is refused; a name that does not resolve passes (the run reports it). */
  async assertAllowed(url: URL): Promise<void> {
    const hostname = bare(url.hostname);
    const addresses = isIP(hostname)
      ? [hostname]
      : await dnsLookupAsync(hostname, { all: true, verbatim: true }).then(
          (found) => found.map((entry) => entry.address),
          () => [],
        );
    for (const address of addresses) {
      const reason = this.refusal(hostname, address);
      if (reason) throw refused(url.hostname, reason);
    }
  }

  /** For connections to a literal IP address, which never go through `lookup`. */
  refuseLiteral(hostname: string): CorralError | null {
    const address = bare(hostname);
    const reason = isIP(address) ? this.refusal(address, address) : null;
    return reason ? refused(hostname, reason) : null;
  }

  /** A net lookup that refuses what the policy refuses, for the connection itself. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const entry of found) {
        const reason = this.refusal(hostname, entry.address);
        if (reason) return callback(refused(hostname, reason) as unknown as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  };
}

function refused(hostname: string, reason: string): CorralError {
  return new CorralError('MODEL_ERR_ENDPOINT_REFUSED', `model.base_url: host ${hostname} is not an allowed model endpoint on this server: ${reason}`, {
    details: { field: 'model.base_url' },
  });
}

function invalidEntry(entry: string): CorralError {
  return new CorralError(
    'CFG_ERR_INVALID',
    `server.modelEndpointAllowlist: '${entry}' is not a host name (without port), an IP address or a CIDR (e.g. 10.0.0.0/8)`,
  );
}
