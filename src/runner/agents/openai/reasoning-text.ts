/**
 * The final answer without the model's reasoning. Reasoning models write `<think>…</think>` before the answer
 * (or only `…</think>` when the chat template opened the block); the trajectory keeps every word, but a rubric
 * must judge the answer, not the thinking. A block never closed (cut at the token limit) leaves no answer.
 */
export function answerWithoutReasoning(content: string): string {
  if (!content.includes('think>')) return content;
  const withoutBlocks = content.replace(/<think>[\s\S]*?<\/think>/g, '');
  const closing = withoutBlocks.lastIndexOf('</think>');
  const afterTemplateOpened = closing >= 0 ? withoutBlocks.slice(closing + '</think>'.length) : withoutBlocks;
  const open = afterTemplateOpened.indexOf('<think>');
  return (open >= 0 ? afterTemplateOpened.slice(0, open) : afterTemplateOpened).trim();
}
