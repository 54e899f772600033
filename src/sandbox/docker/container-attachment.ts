import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';
import { BoundedTextBuffer } from './bounded-text-buffer.js';
import { DockerStreamDemultiplexer } from './stream-demultiplexer.js';

/** The agent's stdio over one hijacked attach connection: raw bytes in, multiplexed frames out. */
export interface ContainerAttachment {
  /** The agent's stdin. */
  readonly stdin: Socket;
  /** The agent's stdout (the JSON-lines protocol). Ends only when endStdout() is called. */
  readonly stdout: PassThrough;
  /** The last few KiB of the agent's stderr, for error messages. */
  readonly stderrLog: BoundedTextBuffer;
  /** Resolves once the connection is gone (the container exited, or we closed it). */
  readonly disconnected: Promise<void>;
  endStdout(): void;
  destroy(): void;
}

/**
 * Attaches before start so no byte of output is missed (the log driver is 'none', so nothing could be
 * replayed later). stdout is deliberately not ended when the socket closes: the provider first learns why
 * the container died, closes the agent connection with a typed reason, and only then ends the stream, so
 * pending calls fail with SBX_ERR_KILLED instead of a generic "stream ended".
 */
export async function attachContainer(container: Docker.Container, options: { abortSignal?: AbortSignal } = {}): Promise<ContainerAttachment> {
  const socket = (await container.attach({
    stream: true,
    stdin: true,
    stdout: true,
    stderr: true,
    hijack: true,
    abortSignal: options.abortSignal,
  })) as unknown as Socket;
  socket.setNoDelay(true);
  // The socket may come from the keep-alive pool, which unrefs idle sockets; a live sandbox must hold the
  // process open like any other open connection until it is destroyed.
  socket.ref();
  const stdout = new PassThrough();
  const stderrLog = new BoundedTextBuffer();
  const stderrDecoder = new StringDecoder('utf8');
  const demultiplexer = new DockerStreamDemultiplexer({
    stdout: (chunk) => stdout.write(chunk),
    stderr: (chunk) => stderrLog.append(stderrDecoder.write(chunk)),
    corrupt: (reason) => {
      stderrLog.append(`\n[corral] attach stream corrupt: ${reason}\n`);
      socket.destroy();
    },
  });
  socket.pipe(demultiplexer);
  const disconnected = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // Errors surface as 'close'; without a listener an ECONNRESET would crash the process.
  socket.on('error', (error) => stderrLog.append(`\n[corral] attach stream error: ${error.message}\n`));
  return {
    stdin: socket,
    stdout,
    stderrLog,
    disconnected,
    endStdout: () => {
      if (!stdout.writableEnded) stdout.end();
    },
    destroy: () => socket.destroy(),
  };
}
