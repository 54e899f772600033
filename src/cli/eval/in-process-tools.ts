/**
 * Tool sessions for `corral eval` in one process: each rollout gets its own MCP server over an in-memory linked
 * pair, with its own lazily leased sandbox, so the runner talks MCP exactly as it would to a remote server.
 */
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { createToolServer } from '../../mcp/create-tool-server.js';
import { LazySandboxes } from '../../mcp/lazy-sandboxes.js';
import type { SandboxSource } from '../../mcp/sandbox-source.js';
import { openMcpToolSession } from '../../runner/contract/mcp-tool-session.js';
import type { ToolSessionFactory } from '../../runner/contract/tool-session.js';
import type { Environment } from '../../runner/contract/environment.js';
import { filesTools } from '../../tools/files/files-toolset.js';
import { jsTools } from '../../tools/js/js-toolset.js';
import { pythonTools } from '../../tools/python/python-toolset.js';
import { shellTools } from '../../tools/shell/shell-toolset.js';
import type { ToolDefinition } from '../../tools/tool-definition.js';
import type { WikiLookup } from '../../tools/wiki/wiki-lookup.js';
import { wikiTools } from '../../tools/wiki/wiki-toolset.js';
import { CorralError } from '../../core/errors.js';

export function toolsForToolsets(toolsets: Environment['toolsets'], wiki: WikiLookup | undefined): ToolDefinition[] {
  return toolsets.flatMap((toolset): readonly ToolDefinition[] => {
    switch (toolset) {
      case 'python':
        return pythonTools;
      case 'shell':
        return shellTools;
      case 'files':
        return filesTools;
      case 'js':
        return jsTools;
      case 'wiki':
        if (!wiki) throw new CorralError('CFG_ERR_INVALID', 'this environment needs a wiki corpus: pass --corpus PATH or set CORRAL_DATA_DIR');
        return wikiTools(wiki);
    }
  });
}

export function inProcessToolSessions(tools: readonly ToolDefinition[], source: SandboxSource): ToolSessionFactory {
  return {
    async open(options) {
      const sandboxes = new LazySandboxes(source);
      const server = createToolServer({ tools, sandboxSource: sandboxes });
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      const close = async () => {
        await server.close().catch(() => undefined);
        await sandboxes.release();
      };
      try {
        await server.connect(serverTransport);
        return await openMcpToolSession(clientTransport, { ...options, onClose: close });
      } catch (error) {
        await close();
        throw error;
      }
    },
  };
}
