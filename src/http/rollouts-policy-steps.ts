/**
 * The rollout API's policy step clocks (the stale-work policy, docs/rollouts-api.md): a trainer's current policy step,
 * one clock per principal and policy name, so two trainers sharing a server never advance each other's. A request's
 * `policy_step` moves its clock to at least that step, and so does POST /v1/policies/<policy>/step {"step"}; a clock
 * never goes back. Requests with `max_staleness` listen to their clock (rollouts-expiry.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';

/** What a request's `policy` may be: a trainer's run name. */
export const POLICY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const POLICY_NAME_RULE = "letters, digits, '.', '_' and '-' (at most 128), starting with a letter or digit";
export const DEFAULT_POLICY = 'default';
/** Clocks nobody listens to are forgotten beyond this many (the oldest first), so made-up names cannot grow memory. */
const MAX_IDLE_CLOCKS = 4_096;

interface Clock {
  /** Undefined until the clock is first moved (a request may listen to a clock nobody has moved yet). */
  step: number | undefined;
  listeners: Set<(step: number) => void>;
}

export class PolicyStepClocks {
  /** In insertion order, refreshed on every advance: the first idle one is the least recently moved. */
  private readonly clocks = new Map<string, Clock>();

  /** The clock's step; undefined when it was never moved. */
  current(principal: string, policy: string): number | undefined {
    return this.clocks.get(clockKey(principal, policy))?.step;
  }

  /** Moves the clock to `step` unless it is already further; returns its step afterwards. */
  advance(principal: string, policy: string, step: number): number {
    const key = clockKey(principal, policy);
    const clock: Clock = this.clocks.get(key) ?? { step: undefined, listeners: new Set() };
    const moved = clock.step === undefined || step > clock.step;
    if (moved) clock.step = step;
    this.clocks.delete(key);
    this.clocks.set(key, clock);
    this.forgetIdle();
    if (moved) for (const listener of [...clock.listeners]) listener(step);
    return clock.step!;
  }

  /** Calls `listener` with the new step whenever the clock moves forward. Returns the unsubscribe. */
  subscribe(principal: string, policy: string, listener: (step: number) => void): () => void {
    const key = clockKey(principal, policy);
    let clock = this.clocks.get(key);
    if (!clock) {
      clock = { step: undefined, listeners: new Set() };
      this.clocks.set(key, clock);
    }
    const subscribed = clock;
    subscribed.listeners.add(listener);
    return () => subscribed.listeners.delete(listener);
  }

  private forgetIdle(): void {
    if (this.clocks.size <= MAX_IDLE_CLOCKS) return;
    for (const [key, clock] of this.clocks) {
      if (this.clocks.size <= MAX_IDLE_CLOCKS) return;
      if (clock.listeners.size === 0) this.clocks.delete(key);
    }
  }
}

const clockKey = (principal: string, policy: string) => `${principal}\u0000${policy}`;

const stepBodySchema = z.object({ step: z.number().int().min(0) }).strict();

/**
 * POST /v1/policies/<policy>/step {"step": n}: the trainer's policy is now at step n (after a weight update). Answers
 * {policy, step} with the clock's step (which stays put when n is behind it). GET answers the same, step null when unset.
 */
export function policyStepRoutes(app: FastifyInstance, clocks: PolicyStepClocks): void {
  const principalOf = (request: FastifyRequest) => app.corral.resolvePrincipal(request.headers, request.ip);
  app.post<{ Params: { policy: string } }>('/v1/policies/:policy/step', async (request, reply) => {
    const { policy } = request.params;
    if (!POLICY_NAME_PATTERN.test(policy)) return reply.code(400).send(invalidPolicy(policy));
    const parsed = stepBodySchema.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.code === 'unrecognized_keys' ? (issue.keys[0] ?? '(body)') : issue.path.map(String).join('.') || '(body)';
      return reply.code(400).send({ error: { code: 'INVALID_REQUEST', message: `${field}: ${issue.message}`, field } });
    }
    return { policy, step: clocks.advance(principalOf(request), policy, parsed.data.step) };
  });
  app.get<{ Params: { policy: string } }>('/v1/policies/:policy/step', async (request, reply) => {
    const { policy } = request.params;
    if (!POLICY_NAME_PATTERN.test(policy)) return reply.code(400).send(invalidPolicy(policy));
    return { policy, step: clocks.current(principalOf(request), policy) ?? null };
  });
}

const invalidPolicy = (policy: string) => ({
  error: { code: 'INVALID_REQUEST', message: `policy: '${policy.slice(0, 64)}' is not a policy name (${POLICY_NAME_RULE})`, field: 'policy' },
});
