/**
 * A tool call racing DELETE /v1/episodes/<id> (issue 20): the call in flight when the episode is released gets a
 * typed answer with a corral code (the episode is gone), never an untyped 500 "Internal server error". The call is
 * a grep with a catastrophic regular expression, so it is certainly still running when the DELETE arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type EpisodeServer, startEpisodeServer } from './episodes-server.js';

const processBackend = await backendAvailable('process');

describe.runIf(processBackend)('a tool call racing DELETE /v1/episodes/<id>', () => {
  let server: EpisodeServer;
  beforeAll(async () => {
    server = await startEpisodeServer();
  });
  afterAll(async () => server?.close());

  it('answers the call in flight with EPISODE_ERR_CLOSED (409), and the DELETE with 204', async () => {
    const { body: episode } = await server.call('POST', '/v1/episodes', { env: 'tally', example_id: 'tally-0' });
    await server.call('POST', `/v1/episodes/${episode.id}/tools/write_file`, { path: 'slow.txt', content: `${'a'.repeat(40)}b\n` });
    const inFlight = server.call('POST', `/v1/episodes/${episode.id}/tools/grep`, { pattern: '^(a+)+$', path: 'slow.txt' });
    // Backtracking over 40 characters runs far longer than this pause; the call is in the sandbox now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await server.call('DELETE', `/v1/episodes/${episode.id}`)).status).toBe(204);
    const answered = await inFlight;
    expect(answered).toMatchObject({ status: 409, body: { error: { code: 'EPISODE_ERR_CLOSED', message: expect.stringContaining(episode.id) } } });
    // After the release the id is simply gone.
    expect(await server.call('POST', `/v1/episodes/${episode.id}/tools/tally`, { n: 1 })).toMatchObject({
      status: 404,
      body: { error: { code: 'EPISODE_ERR_NOT_FOUND' } },
    });
    expect(server.leased()).toBe(0);
  });
});
