/**
 * How the openai agent reaches a chat-completions endpoint: undici's request() on one keep-alive pool per
 * agent, the body read whole (the agent never streams), no retries and no timeouts of its own (the request
 * loop owns both: see chat-completion-request.ts). Measured against the openai package doing its own work in
 * `corral bench runner` (runner.wiki.rollouts_per_s vs runner.wiki.openai_package_rollouts_per_s).
 */
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';

/** Decides which addresses a model connection may reach (see model-endpoint-policy.ts). */
export interface ConnectionGuard {
  /** The sockets' DNS lookup: it calls back an error for addresses that may not be reached. */
  lookup: LookupFunction;
  /** Literal IP hosts skip the lookup, so they are checked here first; the error to fail with, or null. */
  refuseLiteral(hostname: string): Error | null;
}

export interface ModelHttpReply {
  status: number;
  headers: Headers;
  text: string;
}

export class ModelHttpClient {
  private readonly dispatcher: Agent;

  /** With a guard, every new connection resolves through the guard's lookup (a kept-alive socket was checked when it connected). */
  constructor(private readonly guard?: ConnectionGuard) {
    // headersTimeout/bodyTimeout 0: one timer per attempt in the request loop covers headers and body together.
    this.dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000, connect: guard ? { lookup: guard.lookup } : {} });
  }

  /** POSTs `body` as JSON; resolves with any status, rejects on connection failures and aborts. */
  async postJson(url: URL, body: unknown, headers: Record<string, string>, signal: AbortSignal): Promise<ModelHttpReply> {
    const refusal = this.guard?.refuseLiteral(url.hostname);
    if (refusal) throw refusal;
    const response = await request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal,
      dispatcher: this.dispatcher,
    });
    const text = await response.body.text();
    const replyHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    return { status: response.statusCode, headers: replyHeaders, text };
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
