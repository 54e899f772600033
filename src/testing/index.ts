// corral/testing: fakes for users' own tests, the way `ai/test` ships beside `ai`. Named exports only. Nothing in
// src/ imports this room, so the fakes never reach a production code path.
export { startScriptedModelServer } from './scripted-model-server.js';
export type { ScriptedTemplate } from './scripted-chat-template.js';
export type {
  ChatCompletionRequestBody,
  ModelReply,
  ModelScript,
  RecordedRequest,
  ReplyTokens,
  ScriptedModelServer,
  ScriptedModelServerOptions,
  ScriptedToolCall,
  ServerLoad,
} from './scripted-model-server.js';
export { smallWikiIndex } from './small-wiki-index.js';
