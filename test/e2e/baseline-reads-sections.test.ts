/**
 * The main job's records stay small (issue 21: 92 KB a rollout, whole pages copied into the trajectory): the
 * wiki baseline reads a page's sections only up to the one holding the search snippet, so no record holds a
 * page whole, and it still answers. Through the real CLI on a corpus of pages with several sections each; the
 * questions ask about the first, a middle and the last section.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/runner/trajectory/messages.js';
import { readResults, runCorral } from './runner-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'corral-baseline-sections-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const BUILDINGS = ['lighthouse', 'bridge', 'school', 'market hall', 'mill', 'chapel', 'theatre', 'library', 'station', 'museum', 'granary', 'observatory'];
const TOWNS = [
  {
    id: 'tellmar',
    title: 'Tellmar',
    builders: [
      'Odile Farrant',
      'Piet Varga',
      'Lena Quist',
      'Marco Ibsen',
      'Ruth Calder',
      'Anton Brell',
      'Sina Okoro',
      'Hugo Lanne',
      'Ida Marsh',
      'Tomas Rehn',
      'Vera Stolt',
      'Emil Dacre',
    ],
  },
  {
    id: 'brevick',
    title: 'Brevick',
    builders: [
      'Nora Fenwick',
      'Jonas Pell',
      'Clara Voss',
      'Otto Grieve',
      'Alma Ruud',
      'Felix Orme',
      'Greta Hale',
      'Leon Sturt',
      'Maja Kerr',
      'Ivo Brandt',
      'Edda Lorne',
      'Karl Wyatt',
    ],
  },
];

/** Twelve paragraphs: the real server groups them three to a section, so four sections a page. */
function pageContent(town: (typeof TOWNS)[number]): string {
  const paragraphs = BUILDINGS.map(
    (building, index) =>
      `The ${building} of ${town.title} was designed by ${town.builders[index]} in ${1801 + index * 7}. Visitors reach it on foot from the old square, and it is open every day except in winter.`,
  );
  return [`# ${town.title}`, ...paragraphs].join('\n\n');
}

const asked = [0, 5, 11];

describe('the wiki baseline reads sections, not whole pages', () => {
  it('answers from the first, a middle and the last section without copying any page whole into its records', async () => {
    const pages = TOWNS.map((town) => JSON.stringify({ id: town.id, title: town.title, content: pageContent(town) }));
    writeFileSync(join(folder, 'pages.jsonl'), `${pages.join('\n')}\n`);
    const questions = TOWNS.flatMap((town) =>
      asked.map((index) =>
        JSON.stringify({
          id: `${town.id}-${index}`,
          question: `Who designed the ${BUILDINGS[index]} of ${town.title}?`,
          answer: town.builders[index],
          page_id: town.id,
        }),
      ),
    );
    writeFileSync(join(folder, 'questions.jsonl'), `${questions.join('\n')}\n`);
    const out = join(folder, 'run');
    const result = await runCorral([
      'eval',
      'wiki-search',
      '--agent',
      'baseline',
      '--corpus',
      join(folder, 'pages.jsonl'),
      '--questions',
      join(folder, 'questions.jsonl'),
      '--backend',
      'process',
      '--no-progress',
      '--out',
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const records = readResults(out);
    expect(records).toHaveLength(TOWNS.length * asked.length);
    for (const record of records) {
      expect(record.error).toBeNull();
      expect(record.reward, `${record.example_id} answered ${record.final_answer}`).toBe(1);
      const { listed, read } = sectionsSeen(record.completion);
      expect(listed.size, record.example_id).toBeGreaterThan(0);
      for (const [pageId, sections] of listed) {
        expect(sections.length, pageId).toBe(4);
        const readHere = read.filter((sectionId) => sectionId.startsWith(`${pageId}:`));
        expect(readHere, record.example_id).not.toContain(`${pageId}:full`);
        expect(readHere.every((sectionId) => sections.includes(sectionId))).toBe(true);
        expect(new Set(readHere).size, `${record.example_id} read ${readHere.join(', ')}`).toBeLessThan(sections.length);
      }
    }
  }, 120_000);
});

/** Sections listed by view_sections per page, and the section ids passed to read_section, from the messages. */
function sectionsSeen(messages: ChatMessage[]): { listed: Map<string, string[]>; read: string[] } {
  const calls = new Map<string, { name: string; args: Record<string, string> }>();
  const listed = new Map<string, string[]>();
  const read: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? [])
        calls.set(call.id, { name: call.function.name, args: JSON.parse(call.function.arguments) as Record<string, string> });
    } else if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id)!;
      if (call.name === 'view_sections')
        listed.set(
          call.args.page_id!,
          [...String(message.content).matchAll(/^(\S+)\s/gm)].map((match) => match[1]!),
        );
      if (call.name === 'read_section') read.push(call.args.section_id!);
    }
  }
  return { listed, read };
}
