/**
 * How request bodies are read, for every route: a Content-Encoding the server knows (gzip, deflate, br) is decoded
 * and held to the body limit after decoding (a 5 MB JSON sent gzipped was answered "Parse error: Invalid JSON"; now
 * it is 413 like the same body sent plain, and a decompression bomb stops at the limit); any other encoding is 415.
 * JSON nested deeper than MAX_JSON_NESTING_DEPTH is refused with HTTP_ERR_JSON_TOO_DEEP before it is parsed, both
 * by the root JSON parser (/v1 routes) and by the raw-text parser the MCP routes use (the SDK parses those).
 */
import { Transform, type Readable, pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { type FastifyInstance, errorCodes } from 'fastify';
import { CorralError } from '../core/errors.js';
import { exceedsJsonNesting, jsonTooDeepError } from '../mcp/json-nesting.js';

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The preParsing hook that decodes bodies, and the root JSON parser with the nesting bound. */
export function addRequestBodyParsing(app: FastifyInstance, bodyLimitBytes: number): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = String(request.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase();
    if (encoding === '' || encoding === 'identity') return payload;
    const decoder = DECODERS[encoding];
    if (!decoder)
      throw new CorralError(
        'HTTP_ERR_UNSUPPORTED_ENCODING',
        `Unsupported Media Type: Content-Encoding ${encoding} (this server decodes gzip, deflate and br)`,
        {
          details: { encoding },
        },
      );
    return decodedBody(payload, encoding, decoder(), bodyLimitBytes);
  });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (exceedsJsonNesting(textOf(body))) return done(jsonTooDeepError(), undefined);
    parseJson(request, textOf(body), done);
  });
}

/** For scopes that hand bodies to the MCP SDK as raw text (its own parse errors and 415s), with the nesting bound. */
export function acceptRawTextBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) =>
    exceedsJsonNesting(textOf(body)) ? done(jsonTooDeepError(), undefined) : done(null, body),
  );
}

/**
 * The decoded body as fastify reads it: `receivedEncodedLength` is what fastify compares with Content-Length, and
 * past `limitBytes` of decoded output the decoding stops with fastify's own 413 error. The request itself is never
 * destroyed (only unpiped), so the refusal can still be written to the client.
 */
function decodedBody(encoded: Readable, encoding: string, decoder: Transform, limitBytes: number): Readable {
  let encodedBytes = 0;
  let decodedBytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      encodedBytes += chunk.length;
      callback(null, chunk);
    },
  });
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      decodedBytes += chunk.length;
      callback(decodedBytes > limitBytes ? new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE() : null, chunk);
    },
  });
  Object.defineProperty(limiter, 'receivedEncodedLength', { get: () => encodedBytes });
  // Before pipeline's own listener, so the error fastify receives already says what went wrong, as a 400.
  decoder.once('error', (error) => Object.assign(error, { statusCode: 400, message: `Bad request: the body is not valid ${encoding} (${error.message})` }));
  encoded.pipe(counter);
  pipeline(counter, decoder, limiter, (error) => {
    if (!error) return;
    encoded.unpipe(counter);
    encoded.pause();
  });
  return limiter;
}

/** parseAs 'string' hands strings; the type also allows a Buffer. */
const textOf = (body: string | Buffer): string => (typeof body === 'string' ? body : body.toString('utf8'));
