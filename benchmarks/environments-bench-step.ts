/**
 * env.step.*: what one turn of the step API costs a trainer, for a trivial environment (bench-custom: one custom
 * tool, no sandbox). A step is POST /v1/episodes/<id>/step with an assistant message calling lookup_word (corral
 * parses and checks it, runs the call through the episode's in-process MCP session, records it, answers the tool
 * message); the peer is one POST of a similar body to a bare fastify JSON route, the floor of any HTTP round trip
 * here. Corral's own time per step is the difference of the two: in wall time (medians) and in CPU time of this
 * process (client and server both run here; summed over the timed calls only), which a loaded machine disturbs far
 * less. The same step over /ws/episodes is measured too, against the same floor. Steps and floor round trips
 * alternate in blocks; episodes are created and deleted outside the timed calls (two timed steps each, under the
 * environment's maxTurns of 3).
 */
import { WebSocket } from 'ws';
import type { EnvironmentsBenchServer } from './environments-bench-server.js';
import { CUSTOM_TOOL } from './environments-bench-fixtures.js';
import { percentile, round, type Figure } from './figure.js';
import { median } from './measure.js';
import { ECHO_PATH, startFastifyEchoServer } from './peers/fastify-echo-server.js';

const BLOCK = 50;
const STEPS_PER_EPISODE = 2;

const toolTurn = (id: string) => ({
  message: {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: CUSTOM_TOOL.name, arguments: JSON.stringify(CUSTOM_TOOL.arguments) } }],
  },
});

async function postJson(url: string, body: unknown): Promise<{ status: number; value: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, value: (await response.json()) as Record<string, unknown> };
}

/** One /ws/episodes connection whose answers are awaited in order. */
async function openEpisodeSocket(origin: string): Promise<{ call(message: unknown): Promise<{ type: string; data: Record<string, unknown> }>; close(): void }> {
  const socket = new WebSocket(`${origin.replace(/^http/, 'ws')}/ws/episodes`);
  const waiting: ((answer: { type: string; data: Record<string, unknown> }) => void)[] = [];
  socket.on('message', (data) => waiting.shift()?.(JSON.parse(data.toString()) as { type: string; data: Record<string, unknown> }));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return {
    call: (message) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        socket.send(JSON.stringify(message));
      }),
    close: () => socket.close(),
  };
}

/** Wall and CPU time (this process) of one call, in ms. */
function startTimer(): () => { wallMs: number; cpu: number } {
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  return () => {
    const cpu = process.cpuUsage(cpuBefore);
    return { wallMs: performance.now() - startedAt, cpu: (cpu.user + cpu.system) / 1000 };
  };
}

export async function stepOverheadFigures(server: EnvironmentsBenchServer, options: { samples: number; log: (line: string) => void }): Promise<Figure[]> {
  const echo = await startFastifyEchoServer();
  const socket = await openEpisodeSocket(server.origin);
  let failures = 0;

  // HTTP: a fresh episode every STEPS_PER_EPISODE steps, made and deleted between timed calls.
  let episode: { id: string; steps: number } | undefined;
  const nextEpisode = async () => {
    if (episode && episode.steps < STEPS_PER_EPISODE) return episode;
    if (episode) await (await fetch(`${server.origin}/v1/episodes/${episode.id}`, { method: 'DELETE' })).arrayBuffer();
    const created = await postJson(`${server.origin}/v1/episodes`, { env: 'bench-custom', example_id: 'word-0' });
    episode = { id: String(created.value.id), steps: 0 };
    return episode;
  };
  let socketSteps = STEPS_PER_EPISODE;
  const nextSocketEpisode = async () => {
    if (socketSteps < STEPS_PER_EPISODE) return;
    await socket.call({ type: 'reset', data: { env: 'bench-custom', example_id: 'word-0' } });
    socketSteps = 0;
  };

  const stepped = (messages: unknown) => Array.isArray(messages) && (messages[0] as { content?: unknown } | undefined)?.content === 'a natural stream of water';
  const httpStep = async () => {
    const current = await nextEpisode();
    const timer = startTimer();
    const answer = await postJson(`${server.origin}/v1/episodes/${current.id}/step`, toolTurn(`call_${current.steps}`));
    const elapsed = timer();
    current.steps++;
    if (answer.status !== 200 || answer.value.done !== false || !stepped(answer.value.messages)) failures++;
    return elapsed;
  };
  const socketStep = async () => {
    await nextSocketEpisode();
    const timer = startTimer();
    const answer = await socket.call({ type: 'step', data: toolTurn(`call_${socketSteps}`) });
    const elapsed = timer();
    socketSteps++;
    if (answer.type !== 'observation' || answer.data.done !== false || !stepped((answer.data.observation as { messages?: unknown }).messages)) failures++;
    return elapsed;
  };
  const floor = async () => {
    const timer = startTimer();
    await postJson(`${echo.origin}${ECHO_PATH}`, toolTurn('call_0'));
    return timer();
  };

  const samples = { http: [] as number[], socket: [] as number[], floor: [] as number[] };
  const cpuMs = { http: 0, socket: 0, floor: 0 };
  try {
    for (let index = 0; index < BLOCK * 2; index++) {
      await httpStep();
      await socketStep();
      await floor();
    }
    failures = 0;
    while (samples.http.length < options.samples) {
      for (const [key, task] of [
        ['http', httpStep],
        ['socket', socketStep],
        ['floor', floor],
      ] as const) {
        for (let index = 0; index < BLOCK; index++) {
          const { wallMs, cpu } = await task();
          samples[key].push(wallMs);
          cpuMs[key] += cpu;
        }
      }
    }
  } finally {
    socket.close();
    await echo.close();
  }
  const [httpP50, socketP50, floorP50] = [median(samples.http), median(samples.socket), median(samples.floor)];
  const perStep = (key: keyof typeof cpuMs) => cpuMs[key] / samples[key].length;
  options.log(
    `step: p50 ${round(httpP50, 3)} ms over HTTP, ${round(socketP50, 3)} ms over /ws/episodes; bare fastify round trip ${round(floorP50, 3)} ms; ` +
      `corral's own time per HTTP step ${round(httpP50 - floorP50, 3)} ms wall, ${round(perStep('http') - perStep('floor'), 3)} ms CPU`,
  );
  const floorPeer = '1 HTTP round trip to a bare fastify route';
  return [
    {
      name: 'env.step.overhead.p50',
      value: round(httpP50 - floorP50, 3),
      unit: 'ms',
      peer: floorPeer,
      peerValue: round(floorP50, 3),
      target: "<= 2 (corral's own time per step: step p50 minus the round trip's)",
    },
    {
      name: 'env.step.overhead.cpu_ms',
      value: round(perStep('http') - perStep('floor'), 3),
      unit: 'ms',
      peer: floorPeer,
      peerValue: round(perStep('floor'), 3),
      target: "<= 2 (corral's own CPU per step: step CPU minus the round trip's, client and server in this process)",
    },
    { name: 'env.step.http.p50', value: round(httpP50, 3), unit: 'ms', peer: floorPeer, peerValue: round(floorP50, 3), ratio: round(floorP50 / httpP50, 2) },
    { name: 'env.step.http.p90', value: round(percentile(samples.http, 90), 3), unit: 'ms' },
    {
      name: 'env.step.websocket.p50',
      value: round(socketP50, 3),
      unit: 'ms',
      peer: floorPeer,
      peerValue: round(floorP50, 3),
      ratio: round(floorP50 / socketP50, 2),
    },
    {
      name: 'env.step.cpu_ms',
      value: round(perStep('http'), 3),
      unit: 'ms',
      peer: floorPeer,
      peerValue: round(perStep('floor'), 3),
      ratio: round(perStep('floor') / perStep('http'), 2),
      target: 'server + client CPU per HTTP step, this process',
    },
    {
      name: 'env.step.websocket.cpu_ms',
      value: round(perStep('socket'), 3),
      unit: 'ms',
      peer: floorPeer,
      peerValue: round(perStep('floor'), 3),
      ratio: round(perStep('floor') / perStep('socket'), 2),
    },
    { name: 'env.step.errors', value: failures, unit: 'steps', target: '0' },
  ];
}
