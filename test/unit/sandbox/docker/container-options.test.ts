import { describe, expect, it } from 'vitest';
import { containerCreateOptions, containerName } from '../../../../src/sandbox/docker/container-options.js';
import { parseSandboxSpec } from '../../../../src/sandbox/spec.js';

describe('containerCreateOptions', () => {
  const values = { image: 'corral/python:latest', name: containerName('sbx_1'), labels: { 'corral.app': 'corral' }, expiresAtMs: 42 };

  it('hardens by default', () => {
    const spec = parseSandboxSpec({ backend: 'docker', memoryMiB: 256, cpus: 0.5, pidsLimit: 64, workspaceMiB: 32 });
    const options = containerCreateOptions(spec, values);
    // The agent is root with three capabilities; user code runs as 1000:1000 (--run-as), out of reach of the agent.
    expect(options.User).toBe('0:0');
    expect(options.Cmd).toEqual(['python3', '-u', '/opt/corral/agent/agent.py', '--workspace', '/workspace', '--deadline-ms', '42', '--run-as', '1000:1000']);
    expect(options.OpenStdin).toBe(true);
    expect(options.StdinOnce).toBe(true);
    expect(options.HostConfig).toMatchObject({
      Init: true,
      AutoRemove: true,
      Privileged: false,
      CapDrop: ['ALL'],
      CapAdd: ['SETUID', 'SETGID', 'KILL'],
      SecurityOpt: ['no-new-privileges'],
      PidsLimit: 64,
      Memory: 256 * 1024 * 1024,
      MemorySwap: 256 * 1024 * 1024,
      NanoCpus: 500_000_000,
      NetworkMode: 'none',
      ReadonlyRootfs: true,
    });
    expect(options.HostConfig?.Tmpfs?.['/workspace']).toContain('size=32m');
    expect(options.HostConfig?.Tmpfs?.['/workspace']).toContain('uid=1000');
    expect(JSON.stringify(options)).not.toContain('docker.sock');
  });

  it('allows egress only when the spec asks', () => {
    const options = containerCreateOptions(parseSandboxSpec({ backend: 'docker', network: 'egress' }), values);
    expect(options.HostConfig?.NetworkMode).toBe('bridge');
  });

  it('makes names Docker accepts', () => {
    expect(containerName('lease:1/a')).toBe('corral-lease-1-a');
  });
});
