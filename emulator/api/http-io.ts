/**
 * Low-level request/response helpers for the API server: bounded body reading, JSON and Status responses,
 * and `Warning` headers. Every response goes through `send`, so headers are set before writeHead and the
 * request journal can read them back.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from './errors';

/** The apiserver's request body limit (3 MiB, etcd's object size bound). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Read the whole request body; 413 beyond `limit`. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
    });
  });
}

/** Write a complete response. `headers` are set (not merged into writeHead) so they stay readable. */
export function send(res: ServerResponse, code: number, body: string, contentType: string, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent || res.destroyed) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.writeHead(code);
  res.end(body);
}

/** Write a JSON response. */
export function sendJson(res: ServerResponse, code: number, value: unknown, contentType = 'application/json', headers: Record<string, string | string[]> = {}): void {
  send(res, code, JSON.stringify(value), contentType, headers);
}

/** Write a StatusError: its Status as JSON, or its plain text (APF-style 429), with its extra headers. */
export function sendStatusError(res: ServerResponse, err: StatusError): void {
  if (err.plainText !== undefined) {
    send(res, err.code, err.plainText, 'text/plain; charset=utf-8', { ...err.headers, 'X-Content-Type-Options': 'nosniff' });
    return;
  }
  sendJson(res, err.code, err.status, 'application/json', err.headers);
}

/** `Warning: 299 - "text"` header values (RFC 7234 warn-text quoting, as the apiserver writes them). */
export function warningHeaderValues(warnings: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of warnings) {
    if (seen.has(w)) continue;
    seen.add(w);
    out.push(`299 - "${w.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
  }
  return out;
}

/** Parse a JSON body; 400 BadRequest with `prefix` and the parser message when it is not JSON. */
export function parseJsonBody(body: Buffer, prefix: string): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StatusError(400, 'BadRequest', `${prefix}: ${(err as Error).message}`);
  }
}
