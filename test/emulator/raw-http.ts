/**
 * Raw HTTPS requests to a test emulator, for what typed clients never send: other spellings of query
 * parameters, request bodies in other encodings, and reading the first lines of a watch stream.
 */
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { TestEmulator } from '../support/emulator-harness';

/** A complete response. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

function options(t: TestEmulator, method: string, path: string, headers: Record<string, string>): https.RequestOptions {
  const opts: https.RequestOptions = { method, headers: { Authorization: `Bearer ${t.emulator.token}`, Accept: 'application/json', 'User-Agent': 'raw-http/1.0 (test)', ...headers } };
  t.kubeConfig().applyToHTTPSOptions(opts as never);
  const url = new URL(path, t.emulator.url);
  return { ...opts, hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}` };
}

/** One request, read to the end. */
export function rawRequest(t: TestEmulator, method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request(options(t, method, path, headers), (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * GET `path` and collect newline-delimited JSON lines until `done(lines)` says enough (then the connection is
 * dropped), or the response ends. Resolves with the status and the lines read.
 */
export function readLines(t: TestEmulator, path: string, done: (lines: any[]) => boolean): Promise<{ status: number; contentType?: string; lines: any[]; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const req = https.request(options(t, 'GET', path, {}), (res) => {
      const lines: any[] = [];
      let buffer = '';
      let settled = false;
      const finish = (ended: boolean): void => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], lines, ended });
        if (!ended) req.destroy();
      };
      res.on('data', (c: Buffer) => {
        buffer += c.toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim() !== '') lines.push(JSON.parse(line));
        }
        if (done(lines)) finish(false);
      });
      res.on('end', () => {
        if (buffer.trim() !== '') lines.push(JSON.parse(buffer));
        finish(true);
      });
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    req.end();
  });
}
