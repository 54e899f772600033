/**
 * Workers announce themselves in one Redis hash (name -> heartbeat JSON), refreshed every few seconds: what
 * they can run (capabilities), how busy they are and what they have done. A worker gone silent for longer than
 * its lease is shown as lost; a draining worker removes itself when it exits.
 */
import type { Redis } from 'ioredis';
import { WORKERS_KEY } from './queue-keys.js';

export interface WorkerCapabilities {
  backends: string[];
  environments: string[];
  agents: string[];
  images: string[];
}

export interface WorkerHeartbeat {
  name: string;
  host: string;
  pid: number;
  capabilities: WorkerCapabilities;
  /** BullMQ queue names this worker takes jobs from. */
  queues: string[];
  concurrency: number;
  lease_ms: number;
  running: number;
  completed: number;
  failed: number;
  state: 'ready' | 'draining';
  started_at: string;
  last_heartbeat: string;
}

export async function publishHeartbeat(redis: Redis, heartbeat: WorkerHeartbeat): Promise<void> {
  await redis.hset(WORKERS_KEY, heartbeat.name, JSON.stringify(heartbeat));
}

export async function removeWorker(redis: Redis, name: string): Promise<void> {
  await redis.hdel(WORKERS_KEY, name);
}

export async function listWorkers(redis: Redis): Promise<WorkerHeartbeat[]> {
  const entries = await redis.hgetall(WORKERS_KEY);
  return Object.values(entries)
    .flatMap((body) => {
      try {
        return [JSON.parse(body) as WorkerHeartbeat];
      } catch {
        return [];
      }
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Silent for longer than max(3 heartbeats, its lease): its jobs go back to the queue once their locks expire. */
export function workerLost(heartbeat: WorkerHeartbeat, heartbeatMs: number, nowMs = Date.now()): boolean {
  return nowMs - Date.parse(heartbeat.last_heartbeat) > Math.max(3 * heartbeatMs, heartbeat.lease_ms);
}
