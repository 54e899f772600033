import { cpus, totalmem } from 'node:os';

/** One line describing the machine, printed with every benchmark's medians. */
export function describeMachine(): string {
  const cpuList = cpus();
  return `${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'unknown cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${process.platform}`;
}
