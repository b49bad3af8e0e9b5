import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileAt, homePath } from './filesystem-paths.js';
import type { ToolConnection, ToolOutcome } from './tool-outcome.js';

/**
 * read_media_file as the MCP filesystem server answers it: the file's bytes
 * in base64, in an image or audio content block by its extension's MIME
 * type, any other file as an embedded resource (a `file://` URI of its
 * absolute path); the structured content mirrors the blocks. The bytes are
 * the draft's view of the file.
 */

const MIME_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.svg': 'image/svg+xml',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.flac': 'audio/flac',
};

const str = { type: 'string' };
/** That server's outputSchema for it: `{ content: [image or audio block | embedded resource] }`. */
export const MEDIA_OUTPUT = {
  type: 'object',
  properties: {
    content: {
      type: 'array',
      items: {
        anyOf: [
          {
            type: 'object',
            properties: { type: { type: 'string', enum: ['image', 'audio'] }, data: str, mimeType: str },
            required: ['type', 'data', 'mimeType'],
          },
          {
            type: 'object',
            properties: {
              type: { type: 'string', const: 'resource' },
              resource: {
                type: 'object',
                properties: { uri: str, mimeType: str, blob: str },
                required: ['uri', 'blob'],
              },
            },
            required: ['type', 'resource'],
          },
        ],
      },
    },
  },
  required: ['content'],
};

export async function readMediaFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const p = homePath(conn, String(a.path));
  const file = await fileAt(conn, p);
  const mimeType = MIME_TYPES[extname(p.abs).toLowerCase()] ?? 'application/octet-stream';
  const data = file.content.toString('base64');
  const block =
    mimeType.startsWith('image/') || mimeType.startsWith('audio/')
      ? { type: mimeType.startsWith('image/') ? 'image' : 'audio', data, mimeType }
      : { type: 'resource', resource: { uri: pathToFileURL(p.abs).href, mimeType, blob: data } };
  const text = `${p.given}: ${mimeType}, ${file.content.length} bytes`;
  return { isError: false, text, structured: { content: [block] }, content: [block] };
}
