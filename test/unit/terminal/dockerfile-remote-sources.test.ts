/** Which task Dockerfile instructions would make the daemon fetch from outside the build context (issue 20). */
import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../src/core/errors.js';
import { assertNoRemoteSources, findRemoteSources } from '../../../src/terminal/dockerfile-remote-sources.js';

const sources = (dockerfile: string) => findRemoteSources(dockerfile).map((each) => [each.line, each.instruction, each.source]);

describe('findRemoteSources', () => {
  it('finds ADD of URLs and git repositories, in shell and JSON form, any case, with flags, after continuations', () => {
    const dockerfile = [
      'FROM debian:bookworm-slim',
      'ADD http://127.0.0.1:8080/secret.txt /secret.txt',
      'add --chmod=644 HTTPS://example.com/a.tgz /a.tgz',
      'ADD ["ftp://host/x", "/x"]',
      'ADD git@github.com:owner/repo.git /repo',
      'ADD --keep-git-dir=true \\',
      '    git://host/repo /repo2',
      'ONBUILD ADD http://10.0.0.1/y /y',
    ].join('\n');
    expect(sources(dockerfile)).toEqual([
      [2, 'ADD', 'http://127.0.0.1:8080/secret.txt'],
      [3, 'ADD', 'HTTPS://example.com/a.tgz'],
      [4, 'ADD', 'ftp://host/x'],
      [5, 'ADD', 'git@github.com:owner/repo.git'],
      [6, 'ADD', 'git://host/repo'],
      [8, 'ADD', 'http://10.0.0.1/y'],
    ]);
  });

  it('finds a variable in an ADD source and --from values that are not earlier stages', () => {
    const dockerfile = [
      'ARG SOURCE=http://127.0.0.1:1/s',
      'FROM debian:bookworm-slim AS builder',
      'ADD $SOURCE /s',
      'FROM debian:bookworm-slim',
      'COPY --from=builder /s /s',
      'COPY --from=0 /s /t',
      'COPY --from=127.0.0.1:5000/image /x /x',
      'COPY --from=https://example.com/ctx /x /y',
    ].join('\n');
    expect(sources(dockerfile)).toEqual([
      [3, 'ADD', '$SOURCE'],
      [7, 'COPY', '--from=127.0.0.1:5000/image'],
      [8, 'COPY', '--from=https://example.com/ctx'],
    ]);
  });

  it('leaves local ADD and COPY alone, and reads the escape directive, comments and heredocs', () => {
    const dockerfile = [
      '# escape=`',
      'FROM debian:bookworm-slim',
      '# ADD http://127.0.0.1/commented /x',
      'ADD archive.tar.gz /app/',
      'COPY data/ /app/data/',
      'RUN echo a `',
      '    http://127.0.0.1/not-an-add',
      'COPY <<EOF /app/note.txt',
      'ADD http://inside-a-heredoc/ /z',
      'EOF',
    ].join('\n');
    expect(sources(dockerfile)).toEqual([]);
  });

  it('assertNoRemoteSources throws TASK_ERR_REMOTE_SOURCE naming the line', () => {
    let thrown: unknown;
    try {
      assertNoRemoteSources('t', 'FROM x\nADD http://127.0.0.1:9/secret.txt /secret.txt\n');
    } catch (error) {
      thrown = error;
    }
    expect(CorralError.hasCode(thrown, 'TASK_ERR_REMOTE_SOURCE')).toBe(true);
    expect((thrown as Error).message).toContain('line 2: ADD http://127.0.0.1:9/secret.txt');
  });
});
