import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { ContainerExitEvents } from '../../../../src/sandbox/docker/container-exit-events.js';

function fakeDocker() {
  const stream = new PassThrough();
  const docker = { getEvents: async () => stream } as unknown as Docker;
  const emit = (action: string, id: string, exitCode?: number) =>
    stream.write(
      `${JSON.stringify({ Type: 'container', Action: action, Actor: { ID: id, Attributes: exitCode === undefined ? {} : { exitCode: String(exitCode) } } })}\n`,
    );
  return { docker, stream, emit };
}

describe('ContainerExitEvents', () => {
  it('reports the exit status of a tracked container, even when the event came first', async () => {
    const { docker, emit } = fakeDocker();
    const events = new ContainerExitEvents(docker);
    await events.track('a');
    emit('die', 'a', 137);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await events.exitOf('a', 1_000)).toEqual({ statusCode: 137, outOfMemory: false });
    events.close();
  });

  it('flags an oom before the die, and ignores containers it does not track', async () => {
    const { docker, emit } = fakeDocker();
    const events = new ContainerExitEvents(docker);
    await events.track('b');
    const exit = events.exitOf('b', 1_000);
    emit('die', 'other', 0);
    emit('oom', 'b');
    emit('die', 'b', 137);
    expect(await exit).toEqual({ statusCode: 137, outOfMemory: true });
    events.close();
  });

  it('gives an unknown status after the grace period when no event arrives', async () => {
    const { docker } = fakeDocker();
    const events = new ContainerExitEvents(docker);
    await events.track('c');
    expect(await events.exitOf('c', 20)).toEqual({ statusCode: null, outOfMemory: false });
    events.close();
  });
});
