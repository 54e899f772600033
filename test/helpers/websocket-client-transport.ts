/** The client side of MCP over WebSocket (one JSON-RPC message per text frame), for tests. */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import WebSocket from 'ws';

export class WebSocketClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private socket: WebSocket | undefined;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, { headers: this.headers });
      this.socket = socket;
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_request, response) => reject(new Error(`WebSocket refused: HTTP ${response.statusCode}`)));
      socket.once('error', (error) => reject(error));
      socket.on('message', (data) => this.onmessage?.(JSON.parse(data.toString()) as JSONRPCMessage));
      socket.on('close', () => this.onclose?.());
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => this.socket?.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    this.socket?.close();
  }
}
