/**
 * Files of a sandbox handle, as E2B offers them: PUT /v1/sandboxes/:id/files?path=<path> writes the raw request
 * body, GET reads raw bytes (404 when missing). Everything goes through the sandbox session's file API, so paths
 * are confined to the workspace ('..' or a symlink out answers 403) and never touch the host. The first file call
 * leases the handle's sandbox, as its first tool call would; tool calls then see the same files.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CorralError } from '../core/errors.js';

type FileRequest = { Params: { id: string }; Querystring: { path?: string } };

/** HTTP status for file errors the caller caused; anything else is an infrastructure fault and propagates. */
const CALLER_FILE_ERRORS: Partial<Record<string, number>> = {
  SBX_ERR_PERMISSION: 403,
  SBX_ERR_NOT_FOUND: 404,
  SBX_ERR_INVALID_ARGUMENT: 400,
  SBX_ERR_OUTPUT_LIMIT: 413,
};

/** Sends the answer for a caller's file error and returns true; false for errors that should propagate. */
export function replyToFileError(reply: FastifyReply, error: unknown, path: string): boolean {
  const status = CorralError.isInstance(error) ? CALLER_FILE_ERRORS[error.code] : undefined;
  if (!status || !CorralError.isInstance(error)) return false;
  void reply.code(status).send({ error: { code: error.code, message: `${path}: ${error.message}`, path } });
  return true;
}

export async function sandboxFileRoutes(app: FastifyInstance): Promise<void> {
  const { host, resolvePrincipal, config } = app.corral;
  const maxBytes = config.server.bodyLimitBytes;
  // Raw bytes whatever the content type (a JSON file is a file, not a JSON body): only in this plugin's scope.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.put<FileRequest>('/v1/sandboxes/:id/files', async (request, reply) => {
    const path = request.query.path;
    if (!path) return reply.code(400).send(missingPath());
    const content = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    try {
      const written = await host.withHandleSession(request.params.id, resolvePrincipal(request.headers, request.ip), (session) =>
        session.files.write({ path, content: content.toString('base64'), encoding: 'base64', createParents: true }),
      );
      if (!written) return reply.code(404).send(sandboxNotFound(request.params.id));
      return { path, sizeBytes: written.value.sizeBytes };
    } catch (error) {
      if (replyToFileError(reply, error, path)) return reply;
      throw error;
    }
  });

  app.get<FileRequest>('/v1/sandboxes/:id/files', async (request, reply) => {
    const path = request.query.path;
    if (!path) return reply.code(400).send(missingPath());
    try {
      const read = await host.withHandleSession(request.params.id, resolvePrincipal(request.headers, request.ip), (session) =>
        session.files.read({ path, encoding: 'base64', maxBytes }),
      );
      if (!read) return reply.code(404).send(sandboxNotFound(request.params.id));
      const file = read.value;
      if (!file) return reply.code(404).send({ error: { code: 'FILE_NOT_FOUND', message: `no file ${path} in the sandbox workspace`, path } });
      if (file.truncated)
        return reply.code(413).send({
          error: {
            code: 'SBX_ERR_OUTPUT_LIMIT',
            message: `${path} is ${file.sizeBytes} bytes, more than this server sends (bodyLimitBytes ${maxBytes})`,
            path,
          },
        });
      return reply.type('application/octet-stream').send(Buffer.from(file.content, 'base64'));
    } catch (error) {
      if (replyToFileError(reply, error, path)) return reply;
      throw error;
    }
  });
}

function missingPath() {
  return { error: { code: 'INVALID_QUERY', message: 'path: required, e.g. ?path=data/input.csv (relative to the sandbox workspace)', fields: ['path'] } };
}

export function sandboxNotFound(id: string) {
  return { error: { code: 'SANDBOX_NOT_FOUND', message: `no sandbox ${id} (it expired, was deleted, or belongs to another client)` } };
}
