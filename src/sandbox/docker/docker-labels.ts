/**
 * Labels on every container corral creates, so the reaper and `docker ps --filter label=corral.app=corral`
 * can find them, tell whose they are and when they expire. Image labels use other keys on purpose: a
 * container inherits its image's labels, and a plain `docker run corral/python` must not look like ours.
 */
export const LABEL_APP = 'corral.app';
export const LABEL_APP_VALUE = 'corral';
export const LABEL_VERSION = 'corral.version';
export const LABEL_OWNER = 'corral.owner';
export const LABEL_SANDBOX = 'corral.sandbox';
export const LABEL_EXPIRES = 'corral.expires';
export const LABEL_SPEC = 'corral.spec';

export const IMAGE_LABEL_KIND = 'corral.image';
export const IMAGE_LABEL_HASH = 'corral.image.hash';
export const IMAGE_LABEL_BUILDER = 'corral.image.builder';

/** Filter for listContainers that matches every corral sandbox container. */
export const CORRAL_CONTAINER_FILTER = `${LABEL_APP}=${LABEL_APP_VALUE}`;

export interface SandboxLabelValues {
  version: string;
  ownerId: string;
  sandboxId: string;
  expiresAtMs: number;
  specHash: string;
}

export function sandboxLabels(values: SandboxLabelValues): Record<string, string> {
  return {
    [LABEL_APP]: LABEL_APP_VALUE,
    [LABEL_VERSION]: values.version,
    [LABEL_OWNER]: values.ownerId,
    [LABEL_SANDBOX]: values.sandboxId,
    [LABEL_EXPIRES]: String(values.expiresAtMs),
    [LABEL_SPEC]: values.specHash,
  };
}
