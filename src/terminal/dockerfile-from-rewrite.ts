import type { BaseImageMap } from './base-image-map.js';
import { mapBaseImage } from './base-image-map.js';

export interface FromLine {
  /** 0-based line index in the Dockerfile. */
  line: number;
  /** The image as written (stage names and scratch are not listed). */
  image: string;
  /** The map's local image, or undefined when the map has no entry. */
  mappedTo?: string;
}

export interface RewrittenDockerfile {
  text: string;
  /** Every FROM that names an image (not an earlier stage, not scratch). */
  bases: FromLine[];
}

// FROM [--platform=...] <image> [AS <name>]; flags other than --platform do not exist for FROM.
const FROM_PATTERN = /^(\s*FROM\s+)((?:--\S+\s+)*)(\S+)(\s+AS\s+(\S+))?(\s*)$/i;

/**
 * Rewrites each FROM whose image the map knows to the mapped local image; other lines are untouched
 * byte for byte. FROM lines naming an earlier stage or scratch are kept. The --platform flag is dropped
 * on rewritten lines: the local bases exist for the host's platform only.
 */
export function rewriteDockerfileBases(dockerfile: string, map: BaseImageMap): RewrittenDockerfile {
  const stages = new Set<string>();
  const bases: FromLine[] = [];
  const lines = dockerfile.split('\n').map((text, index) => {
    const match = FROM_PATTERN.exec(text.replace(/\r$/, ''));
    if (!match) return text;
    const [, keyword, flags, image, alias = '', stageName, trailing] = match;
    const isStage = stages.has(image!.toLowerCase()) || image!.toLowerCase() === 'scratch';
    if (stageName) stages.add(stageName.toLowerCase());
    if (isStage) return text;
    const mappedTo = mapBaseImage(map, image!);
    bases.push({ line: index, image: image!, mappedTo });
    return mappedTo ? `${keyword}${mappedTo}${alias}${trailing}` : `${keyword}${flags}${image}${alias}${trailing}`;
  });
  return { text: lines.join('\n'), bases };
}
