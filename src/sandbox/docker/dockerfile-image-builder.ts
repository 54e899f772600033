import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { IMAGE_LABEL_BUILDER, IMAGE_LABEL_HASH, IMAGE_LABEL_KIND } from './docker-labels.js';
import { IMAGE_BUILDER_VERSION, type ImageDefinition, agentSourceDirectory, hashTag, imageDirectory } from './image-definition.js';

export interface DockerfileBuildOptions {
  docker: Docker;
  contentHash: string;
  log: (line: string) => void;
}

/**
 * Builds images/<name>/Dockerfile for users whose daemon can pull the base image. The context is staged in
 * a temp dir holding only images/<name>/ and sandboxes/agent/ (same relative paths as the repository), so a
 * build never uploads node_modules. Goes through the daemon API like the offline builder: no CLI needed.
 */
export async function buildImageWithDockerfile(definition: ImageDefinition, options: DockerfileBuildOptions): Promise<void> {
  const context = await mkdtemp(join(tmpdir(), `corral-context-${definition.name}-`));
  try {
    await cp(imageDirectory(definition), join(context, 'images', definition.name), { recursive: true });
    await cp(agentSourceDirectory(), join(context, 'sandboxes', 'agent'), { recursive: true, filter: (source) => !/__pycache__|\.pyc$/.test(source) });
    const tar = spawn('tar', ['-C', context, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const tag = hashTag(definition, options.contentHash);
    options.log(`docker build ${tag} from images/${definition.name}/Dockerfile`);
    const progress = await options.docker.buildImage(tar.stdout, {
      t: tag,
      dockerfile: `images/${definition.name}/Dockerfile`,
      labels: {
        [IMAGE_LABEL_KIND]: definition.name,
        [IMAGE_LABEL_HASH]: options.contentHash,
        [IMAGE_LABEL_BUILDER]: `dockerfile-${IMAGE_BUILDER_VERSION}`,
      },
      rm: true,
      forcerm: true,
    });
    await new Promise<void>((resolve, reject) => {
      options.docker.modem.followProgress(
        progress,
        (error: Error | null, events: Array<{ error?: string }>) => {
          const failed = error?.message ?? events.find((event) => event.error)?.error;
          const hint = ' (no registry reachable? `corral images build --offline` needs none)';
          if (failed) reject(new CorralError('IMG_ERR_BUILD_FAILED', `docker build failed: ${failed}${hint}`, { cause: error }));
          else resolve();
        },
        (event: { stream?: string }) => {
          const line = event.stream?.trim();
          if (line) options.log(`  ${line}`);
        },
      );
    });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
