/**
 * Public entry points for sandbox images: `corral images build [--offline]` calls buildImages, and
 * `corral doctor` calls imageStatus. Both talk to the daemon through the API only.
 */
import { CorralError } from '../../core/errors.js';
import { withBuildLock } from './build-lock.js';
import { openDockerConnection } from './docker-connection.js';
import { describeDaemonError, dockerStatusCode } from './docker-errors.js';
import { IMAGE_LABEL_BUILDER, IMAGE_LABEL_HASH } from './docker-labels.js';
import { buildImageWithDockerfile } from './dockerfile-image-builder.js';
import { IMAGE_DEFINITIONS, type ImageDefinition, hashTag, imageContentHash, latestTag } from './image-definition.js';
import { buildImageOffline } from './offline-image-builder.js';
import type Docker from 'dockerode';

export interface BuildImagesOptions {
  /** Build from host Debian packages with debootstrap + docker import (no registry). Default false: Dockerfile. */
  offline?: boolean;
  /** Rebuild even when an image with the current content hash exists. */
  force?: boolean;
  log?: (line: string) => void;
  dockerSocketPath?: string;
  /** Debian mirror for the offline build (default: $CORRAL_DEBIAN_MIRROR or deb.debian.org). */
  mirror?: string;
  /** Which images (default IMAGE_DEFINITIONS: the sandbox images; TASK_BASE_IMAGE_DEFINITIONS are the terminal task bases). */
  definitions?: readonly ImageDefinition[];
}

export interface ImageBuildResult {
  name: string;
  /** The moving tag, e.g. corral/python:latest. */
  tag: string;
  /** The immutable tag, e.g. corral/python:3f9a1c0d2e7b4a61. */
  hashTag: string;
  contentHash: string;
  /** False when an image with this content hash already existed and the build was skipped. */
  built: boolean;
  durationMs: number;
  imageId: string;
  sizeBytes: number;
}

/** Builds every corral image that is missing or out of date; throws IMG_ERR_BUILD_FAILED. */
export async function buildImages(options: BuildImagesOptions = {}): Promise<ImageBuildResult[]> {
  const log = options.log ?? (() => undefined);
  const connection = openDockerConnection({ socketPath: options.dockerSocketPath });
  try {
    const results: ImageBuildResult[] = [];
    for (const definition of options.definitions ?? IMAGE_DEFINITIONS) {
      results.push(await withBuildLock(definition.name, () => buildOne(connection.docker, definition, options, log), log));
    }
    return results;
  } catch (error) {
    const reason = describeDaemonError(connection.endpoint, error);
    if (reason) throw new CorralError('IMG_ERR_BUILD_FAILED', `cannot build images: ${reason}`, { cause: error });
    throw error;
  } finally {
    connection.close();
  }
}

async function buildOne(docker: Docker, definition: ImageDefinition, options: BuildImagesOptions, log: (line: string) => void): Promise<ImageBuildResult> {
  const startedAt = performance.now();
  const contentHash = await imageContentHash(definition);
  const immutableTag = hashTag(definition, contentHash);
  const previous = await inspectImage(docker, latestTag(definition));
  const existing = options.force ? undefined : await inspectImage(docker, immutableTag);
  if (existing) {
    log(`${immutableTag} is up to date; skipping the build`);
  } else if (options.offline) {
    await buildImageOffline(definition, { docker, contentHash, log, mirror: options.mirror });
  } else {
    await buildImageWithDockerfile(definition, { docker, contentHash, log });
  }
  await docker.getImage(immutableTag).tag({ repo: definition.repository, tag: 'latest' });
  await removeSupersededImages(docker, definition, immutableTag, log);
  const image = existing ?? (await inspectImage(docker, immutableTag));
  if (!image) throw new CorralError('IMG_ERR_BUILD_FAILED', `${immutableTag} is missing right after its build`);
  // A forced rebuild moves both tags, leaving the old image nameless; drop it unless something still uses it.
  if (previous && previous.Id !== image.Id)
    await docker
      .getImage(previous.Id)
      .remove()
      .catch(() => undefined);
  const durationMs = Math.round(performance.now() - startedAt);
  if (!existing) log(`built ${immutableTag} and ${latestTag(definition)} in ${(durationMs / 1000).toFixed(1)} s (${megabytes(image.Size)} MB)`);
  return {
    name: definition.name,
    tag: latestTag(definition),
    hashTag: immutableTag,
    contentHash,
    built: !existing,
    durationMs,
    imageId: image.Id,
    sizeBytes: image.Size,
  };
}

export interface ImageStatus {
  name: string;
  tag: string;
  present: boolean;
  /** True when :latest carries the content hash of the current agent sources and package list. */
  upToDate: boolean;
  expectedHash: string;
  imageHash?: string;
  /** offline-N or dockerfile-N: which builder made it. */
  builder?: string;
  imageId?: string;
  sizeBytes?: number;
  createdAt?: string;
  /** What to do when not present or not up to date. */
  hint?: string;
}

/** State of each corral image for `corral doctor`. Throws SBX_ERR_UNAVAILABLE when the daemon is unreachable. */
export async function imageStatus(options: { dockerSocketPath?: string } = {}): Promise<ImageStatus[]> {
  const connection = openDockerConnection({ socketPath: options.dockerSocketPath });
  try {
    const statuses: ImageStatus[] = [];
    for (const definition of IMAGE_DEFINITIONS) {
      const expectedHash = await imageContentHash(definition);
      const image = await inspectImage(connection.docker, latestTag(definition));
      const imageHash = image?.Config?.Labels?.[IMAGE_LABEL_HASH];
      const upToDate = image !== undefined && imageHash === expectedHash;
      statuses.push({
        name: definition.name,
        tag: latestTag(definition),
        present: image !== undefined,
        upToDate,
        expectedHash,
        imageHash,
        builder: image?.Config?.Labels?.[IMAGE_LABEL_BUILDER],
        imageId: image?.Id,
        sizeBytes: image?.Size,
        createdAt: image?.Created,
        hint: upToDate ? undefined : `run \`corral images build --offline\` (or without --offline where a registry is reachable)`,
      });
    }
    return statuses;
  } catch (error) {
    const reason = describeDaemonError(connection.endpoint, error);
    if (reason) throw new CorralError('SBX_ERR_UNAVAILABLE', reason, { cause: error });
    throw error;
  } finally {
    connection.close();
  }
}

/**
 * Untags older content-hash builds of this image: every agent edit makes a new one, and without this a
 * developer's disk (or CI's) fills with them. An image still used by a container refuses removal; fine.
 */
async function removeSupersededImages(docker: Docker, definition: ImageDefinition, keepTag: string, log: (line: string) => void): Promise<void> {
  const images = await docker.listImages({ filters: { reference: [definition.repository] } });
  const stale = images.flatMap((image) => image.RepoTags ?? []).filter((tag) => tag !== keepTag && tag !== latestTag(definition));
  for (const tag of stale) {
    await docker
      .getImage(tag)
      .remove()
      .then(() => log(`removed superseded image ${tag}`))
      .catch(() => undefined);
  }
}

async function inspectImage(docker: Docker, reference: string): Promise<Docker.ImageInspectInfo | undefined> {
  try {
    return await docker.getImage(reference).inspect();
  } catch (error) {
    if (dockerStatusCode(error) === 404) return undefined;
    throw error;
  }
}

const megabytes = (bytes: number) => (bytes / 1e6).toFixed(0);
