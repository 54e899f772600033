/**
 * The conformance suite's fixture resources: a static text and a static binary resource, a URI template
 * whose variable shows up in the content, and a resource clients may subscribe to. Subscriptions are
 * kept per server instance (one per MCP session), and nothing ever changes, so no update is ever sent.
 */
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { ONE_PIXEL_PNG_BASE64, PNG_MIME_TYPE } from './fixture-media.js';

export function registerFixtureResources(server: McpServer): void {
  server.registerResource(
    'static-text',
    'test://static-text',
    { title: 'Static text', description: 'A fixed plain-text resource.', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { title: 'Static binary', description: 'A fixed binary resource (a 1x1 PNG), returned as a base64 blob.', mimeType: PNG_MIME_TYPE },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: PNG_MIME_TYPE, blob: ONE_PIXEL_PNG_BASE64 }] }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { title: 'Watched resource', description: 'A resource clients may subscribe to (it never changes).', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }] }),
  );
  server.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { title: 'Templated data', description: 'JSON data for any id; the id is substituted into the content.', mimeType: 'application/json' },
    async (uri, variables) => {
      const id = String(variables.id);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
    },
  );

  // After registerResource, which declares `resources`; capabilities merge per key, so listChanged stays.
  server.server.registerCapabilities({ resources: { subscribe: true } });
  const subscribedUris = new Set<string>();
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    subscribedUris.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (request) => {
    subscribedUris.delete(request.params.uri);
    return {};
  });
}
