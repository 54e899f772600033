/**
 * Prometheus metrics for one server: pool sizes (read from pool.stats() at scrape time), tool calls and
 * their latency by tool, and errors by code. A registry per server keeps test servers from colliding.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SandboxPoolView } from '../mcp/sandbox-source.js';
import type { ToolCallObserver, ToolCallRecord } from '../mcp/tool-call-observer.js';

type PoolStats = ReturnType<SandboxPoolView['stats']>[number];

const POOL_STATES = ['idle', 'leased', 'creating', 'resetting', 'waiting'] as const satisfies readonly (keyof PoolStats)[];
const POOL_EVENTS = {
  created: 'createdTotal',
  destroyed: 'destroyedTotal',
  create_failed: 'createFailuresTotal',
  reset: 'resetsTotal',
  reset_failed: 'resetFailuresTotal',
} as const satisfies Record<string, keyof PoolStats>;

/** The admission controller's counts, as plain numbers (http/ does not import the runner). */
export interface AdmissionGauges {
  level: number;
  in_flight: number;
  waiting: number;
  max: number;
}

export interface MetricsSources {
  poolStats: () => readonly PoolStats[];
  hostStats: () => Record<string, number>;
  /** The rollout API's admission controller, read at scrape time. */
  admission?: () => AdmissionGauges | undefined;
}

const ADMISSION_STATES = ['level', 'in_flight', 'waiting', 'max'] as const satisfies readonly (keyof AdmissionGauges)[];

export class CorralMetrics implements ToolCallObserver {
  readonly registry = new Registry();
  private readonly calls: Counter<'tool' | 'outcome'>;
  private readonly durations: Histogram<'tool'>;
  private readonly errors: Counter<'tool' | 'code'>;
  private readonly refusals: Counter<'reason'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'corral_pool_sandboxes',
      help: 'Sandboxes in the pool by spec and state (waiting counts acquire calls queued for one).',
      labelNames: ['backend', 'spec_hash', 'state'],
      registers,
      collect() {
        this.reset();
        for (const bucket of sources.poolStats()) {
          for (const state of POOL_STATES) this.set({ backend: bucket.backend, spec_hash: bucket.specHash, state }, bucket[state]);
        }
      },
    });
    new Gauge({
      name: 'corral_pool_lifecycle_events',
      help: 'Cumulative sandbox lifecycle events by spec (created, destroyed, create_failed, reset, reset_failed).',
      labelNames: ['backend', 'spec_hash', 'event'],
      registers,
      collect() {
        this.reset();
        for (const bucket of sources.poolStats()) {
          for (const [event, field] of Object.entries(POOL_EVENTS)) this.set({ backend: bucket.backend, spec_hash: bucket.specHash, event }, bucket[field]);
        }
      },
    });
    new Gauge({
      name: 'corral_mcp_active',
      help: 'Live MCP bindings by kind: legacySessions, handles, connections, transientSandboxSets.',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const [kind, count] of Object.entries(sources.hostStats())) this.set({ kind }, count);
      },
    });
    if (sources.admission) {
      const admission = sources.admission;
      new Gauge({
        name: 'corral_admission_rollouts',
        help: 'Admission control of the rollout API: the level (rollouts allowed in flight), in_flight, waiting at the gate, and max (the ceiling).',
        labelNames: ['state'],
        registers,
        collect() {
          this.reset();
          const gauges = admission();
          if (gauges) for (const state of ADMISSION_STATES) this.set({ state }, gauges[state]);
        },
      });
    }
    this.calls = new Counter({
      name: 'corral_tool_calls_total',
      help: 'Tool calls by tool and outcome (ok, tool_error, failed).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.durations = new Histogram({
      name: 'corral_tool_call_duration_seconds',
      help: 'Tool call latency, including any sandbox acquire, by tool.',
      labelNames: ['tool'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.errors = new Counter({
      name: 'corral_tool_errors_total',
      help: 'Tool calls that did not succeed, by tool and error code.',
      labelNames: ['tool', 'code'],
      registers,
    });
    this.refusals = new Counter({
      name: 'corral_server_refusals_total',
      help: 'Requests and connections refused or closed by a server limit, by reason (a quota setting name, connection_refused, connection_evicted, first_request_timeout, slow_reader_closed).',
      labelNames: ['reason'],
      registers,
    });
  }

  refused(reason: string): void {
    this.refusals.inc({ reason });
  }

  toolCallFinished(record: ToolCallRecord): void {
    this.calls.inc({ tool: record.tool, outcome: record.outcome });
    this.durations.observe({ tool: record.tool }, record.durationMs / 1000);
    if (record.outcome !== 'ok') this.errors.inc({ tool: record.tool, code: record.errorCode ?? 'UNKNOWN' });
  }
}
