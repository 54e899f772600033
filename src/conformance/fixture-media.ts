/**
 * The image and audio payloads the conformance fixtures return, built here in a few bytes rather than
 * checked in as opaque base64: a 1x1 PNG and a 10 ms silent WAV. Clients only check that the data is
 * present, decodes and carries the right MIME type, so the smallest valid files serve.
 */
import { crc32, deflateSync } from 'node:zlib';

export const PNG_MIME_TYPE = 'image/png';
export const WAV_MIME_TYPE = 'audio/wav';

/** One opaque red pixel (8-bit RGBA), base64. */
export const ONE_PIXEL_PNG_BASE64 = onePixelPng().toString('base64');

/** 10 ms of 8 kHz 16-bit mono silence, base64. */
export const SILENT_WAV_BASE64 = silentWav(80).toString('base64');

function onePixelPng(): Buffer {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(6, 9); // colour type: RGBA
  // compression, filter and interlace methods stay 0.
  // Each scanline starts with its filter type (0 = none), then the pixel.
  const scanline = Buffer.from([0, 0xff, 0x00, 0x00, 0xff]);
  return Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(scanline)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** length, type, data, CRC-32 over type and data (PNG spec section 5.3). */
function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, checksum]);
}

/** A canonical 44-byte RIFF/WAVE header followed by `sampleCount` zero samples. */
function silentWav(sampleCount: number): Buffer {
  const sampleRate = 8_000;
  const bytesPerSample = 2;
  const dataBytes = sampleCount * bytesPerSample;
  const wav = Buffer.alloc(44 + dataBytes);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * bytesPerSample, 28); // byte rate
  wav.writeUInt16LE(bytesPerSample, 32); // block align
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataBytes, 40);
  return wav;
}
