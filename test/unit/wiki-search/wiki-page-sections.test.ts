import { describe, expect, it } from 'vitest';
import { sectionPage, slugify } from '../../../src/wiki-search/page-sections.js';
import { looksTokenised, normaliseWikiText } from '../../../src/wiki-search/wikitext-normalise.js';

const paragraphs = (count: number) => Array.from({ length: count }, (_, index) => `Paragraph number ${index + 1} text.`).join('\n\n');

describe('wiki page sections', () => {
  it('turns markdown headings of any level into sections that span their subsections', () => {
    const page = sectionPage({
      id: 'lighthouse',
      title: 'Lighthouse',
      content: '# Lighthouse\n\nLead text.\n\n## History\n\nOld.\n\n### Modern era\n\nNew.\n\n## Keepers\n\nKeepers.\n',
    });
    expect(page.sections.map((section) => [section.sectionId, section.sectionName, section.origin])).toEqual([
      ['lighthouse:lighthouse', 'Lighthouse', 'heading'],
      ['lighthouse:history', 'History', 'heading'],
      ['lighthouse:modern_era', 'Modern era', 'heading'],
      ['lighthouse:keepers', 'Keepers', 'heading'],
    ]);
    expect(page.sections[1]?.text).toBe('## History\n\nOld.\n\n### Modern era\n\nNew.');
    expect(page.sections[2]?.text).toBe('### Modern era\n\nNew.');
    for (const section of page.sections) expect(page.content.slice(section.start, section.end)).toBe(section.text);
  });

  it('keeps text before the first heading as an Introduction and de-duplicates repeated names', () => {
    const page = sectionPage({ id: 'p', title: 'P', content: 'Intro.\n\n## Reception\n\nA.\n\n## Reception\n\nB.\n\n## Full\n\nC.' });
    expect(page.sections.map((section) => section.sectionId)).toEqual(['p:introduction', 'p:reception', 'p:reception_2', 'p:full_2']);
  });

  it('groups paragraphs of a page without headings, labelled as our grouping', () => {
    const page = sectionPage({ id: 'squad', title: 'Squad', content: `# Squad\n\n${paragraphs(7)}\n` });
    expect(page.sections.map((section) => [section.sectionId, section.sectionName, section.origin])).toEqual([
      ['squad:paragraphs_1_3', 'Paragraphs 1–3', 'paragraphs'],
      ['squad:paragraphs_4_6', 'Paragraphs 4–6', 'paragraphs'],
      ['squad:paragraph_7', 'Paragraph 7', 'paragraphs'],
    ]);
    expect(page.sections[0]?.text).toBe('Paragraph number 1 text.\n\nParagraph number 2 text.\n\nParagraph number 3 text.');
    const noTitle = sectionPage({ id: 'plain', title: 'Plain', content: paragraphs(2) }, { paragraphsPerGroup: 1 });
    expect(noTitle.sections.map((section) => section.sectionName)).toEqual(['Paragraph 1', 'Paragraph 2']);
  });

  it('undoes WikiText tokenisation in titles, headings and text', () => {
    const raw =
      '# Ise @-@ class battleship\n\nThe Ise @-@ class ships , named " Ise " and " Hyūga " , displaced 29 @,@ 990 tonnes at 23 @.@ 6 knots .\n\n## The navy \'s design\n\nIt was n\'t finished ( after delays ) ; the budget was limited .\r';
    const page = sectionPage({ id: 'ise', title: 'Ise @-@ class battleship', content: raw });
    expect(page.title).toBe('Ise-class battleship');
    expect(page.content).toBe(
      '# Ise-class battleship\n\nThe Ise-class ships, named "Ise" and "Hyūga", displaced 29,990 tonnes at 23.6 knots.\n\n## The navy\'s design\n\nIt wasn\'t finished (after delays); the budget was limited.',
    );
    expect(page.sections.map((section) => section.sectionName)).toEqual(['Ise-class battleship', "The navy's design"]);
  });

  it('leaves ordinary prose alone', () => {
    const prose = 'He said "yes" and "no" (twice) , then left.';
    expect(looksTokenised(prose)).toBe(false);
    expect(normaliseWikiText(prose)).toBe(prose);
    expect(slugify('2000 – 2005')).toBe('2000_2005');
    expect(slugify('Ça va?')).toBe('ca_va');
  });
});
