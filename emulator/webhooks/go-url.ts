/**
 * The errors of Go's `net/url.Parse`, which Harvester's image webhook quotes in `url is invalid: %s` (V6 of
 * docs/design/harvester-images.md §"Admission rules"; the parser as of Go 1.26, which Harvester builds with:
 * golang/go src/net/url/url.go `Parse`, `parse`, `parseAuthority`, `parseHost`, `unescape`). Go's parser is
 * lenient: "not a url" is a valid relative reference and only these shapes fail, checked in Go's order —
 * - the part before the first `#` (quoted alone in the error): a control character, a leading ":", a colon in a
 *   scheme-less first segment; then, under `//`, the host (a `[` not first, a missing `]`, a non-numeric port, a
 *   %-escape of an ASCII byte or a character a host may not hold, a bracketed address that is not IPv6), then the
 *   userinfo (a character it may not hold, a bad %-escape); then a bad %-escape in the path. A URL with a scheme
 *   and no `/` after it is opaque and not checked further; the query is never decoded;
 * - then a bad %-escape in the fragment (the whole URL quoted).
 * Go indexes bytes, so the URL is handled as its UTF-8 bytes (one latin1 char each) and quoted as strconv.Quote
 * quotes them. The error text is Go's own (`parse "<url>": <reason>`), so a denial reads as a real cluster's.
 * Where not reproduced: a malformed bracketed address gets Go's `invalid host: ParseAddr("<addr>"): ` prefix
 * with netip's reason only for the fixed cases (no separator, a zone with no address, an empty zone); other
 * malformed IPv6 literals read `unexpected character`, where netip may name another reason.
 */
import { isIPv4, isIPv6 } from 'net';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const SHORT_ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };

/** Go's strconv.Quote of a byte string (each char one byte): valid UTF-8 runs kept, other bytes as \xNN. */
export function goQuote(bytes: string): string {
  const buf = Buffer.from(bytes, 'latin1');
  let out = '';
  for (let i = 0; i < buf.length; ) {
    const b = buf[i];
    if (b < 0x80) {
      out += SHORT_ESCAPES[b] ?? (b < 0x20 || b === 0x7f ? `\\x${b.toString(16).padStart(2, '0')}` : String.fromCharCode(b));
      i++;
      continue;
    }
    const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    let rune: string | undefined;
    try {
      rune = UTF8.decode(buf.subarray(i, i + size));
    } catch {
      // not valid UTF-8: Go quotes the byte alone
    }
    if (rune === undefined) {
      out += `\\x${b.toString(16)}`;
      i++;
    } else {
      out += rune;
      i += size;
    }
  }
  return `"${out}"`;
}

/** A character net/url's shouldEscape lets through unescaped in a host or zone (tested on one character). */
const HOST_CHAR = /[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/;
/** Two hex digits (tested on the at most two characters after a "%"). */
const HEX = /[0-9A-Fa-f]{2}/;

type Mode = 'path' | 'host' | 'zone' | 'userinfo' | 'fragment';

/** Go's unescape check: the first bad %-escape (or, in a host or zone, the first bad character), or undefined. */
function unescapeError(s: string, mode: Mode): string | undefined {
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '%') {
      if ((mode === 'host' || mode === 'zone') && s.charCodeAt(i) < 0x80 && !HOST_CHAR.test(s[i])) return `invalid character ${goQuote(s[i])} in host name`;
      continue;
    }
    const escape = s.slice(i, i + 3);
    if (!HEX.test(escape.slice(1))) return `invalid URL escape ${goQuote(escape)}`;
    // A host may %-escape only non-ASCII bytes (and %25, a zone's start); a zone only what a host could hold.
    const byte = parseInt(escape.slice(1), 16);
    if (mode === 'host' && byte < 0x80 && escape !== '%25') return `invalid URL escape ${goQuote(escape)}`;
    if (mode === 'zone' && escape !== '%25' && byte !== 0x20 && (byte >= 0x80 || !HOST_CHAR.test(String.fromCharCode(byte)))) return `invalid URL escape ${goQuote(escape)}`;
    // Go skips the two hex digits; scanning on over them is the same, as a hex digit is neither "%" nor refused.
  }
  return undefined;
}

/** netip.ParseAddr on a bracketed host: only an IPv6 address (IPv4-mapped included) may stand there. */
function ipLiteralError(escaped: string): string | undefined {
  const addr = escaped.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const fail = (reason: string) => `invalid host: ParseAddr(${goQuote(addr)}): ${reason}`;
  const separator = /[.:%]/.exec(addr)?.[0];
  if (separator === undefined) return fail('unable to parse IP');
  if (separator === '%') return fail('missing IPv6 address');
  if (separator === '.') return isIPv4(addr) ? 'invalid IP-literal' : fail('unexpected character');
  const zone = addr.indexOf('%');
  if (zone === addr.length - 1) return fail('zone must be a non-empty string');
  return isIPv6(zone >= 0 ? addr.slice(0, zone) : addr) ? undefined : fail('unexpected character');
}

/** Go's validOptionalPort: empty, or ":" and digits. */
const validPort = (port: string) => /^(:\d*)?$/.test(port);

function hostError(scheme: string, host: string): string | undefined {
  const open = host.lastIndexOf('[');
  if (open > 0) return 'invalid IP-literal';
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) return "missing ']' in host";
    const port = host.slice(close + 1);
    if (!validPort(port)) return `invalid port ${goQuote(port)} after host`;
    const name = host.slice(1, close);
    const zone = name.indexOf('%25');
    const escape = zone >= 0 ? unescapeError(name.slice(0, zone), 'host') ?? unescapeError(name.slice(zone), 'zone') : unescapeError(name, 'host');
    return escape ?? ipLiteralError(name);
  }
  const first = host.indexOf(':');
  if (first >= 0) {
    // Go 1.26 takes the port after the first colon for http(s) (go.dev/issue/75223), the last one otherwise.
    const port = host.slice(scheme === 'http' || scheme === 'https' ? first : host.lastIndexOf(':'));
    if (!validPort(port)) return `invalid port ${goQuote(port)} after host`;
  }
  return unescapeError(host, 'host');
}

/** Go's parseAuthority: the host first, then the userinfo before the last "@". */
function authorityError(scheme: string, authority: string): string | undefined {
  const at = authority.lastIndexOf('@');
  const hostProblem = hostError(scheme, authority.slice(at + 1));
  if (hostProblem || at < 0) return hostProblem;
  const userinfo = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return 'net/url: invalid userinfo';
  const colon = userinfo.indexOf(':');
  const [user, password] = colon >= 0 ? [userinfo.slice(0, colon), userinfo.slice(colon + 1)] : [userinfo, ''];
  return unescapeError(user, 'userinfo') ?? unescapeError(password, 'userinfo');
}

/** Go's parse (not via a request) of the URL before its fragment. */
function parseError(u: string): string | undefined {
  if (/[\x00-\x1f\x7f]/.test(u)) return 'net/url: invalid control character in URL';
  if (u.startsWith(':')) return 'missing protocol scheme';
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(u)?.[0] ?? '';
  let rest = u.slice(scheme.length);
  const query = rest.indexOf('?');
  if (query >= 0) rest = rest.slice(0, query);
  if (!rest.startsWith('/')) {
    if (scheme) return undefined; // scheme:opaque — Go keeps it as it is
    if (rest.split('/')[0].includes(':')) return 'first path segment in URL cannot contain colon';
  }
  // Go skips the authority of a scheme-less "///…"; an empty authority has nothing to refuse, so checking it is the same.
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash >= 0 ? rest.slice(2, slash) : rest.slice(2);
    const problem = authorityError(scheme.slice(0, -1).toLowerCase(), authority);
    if (problem) return problem;
    rest = slash >= 0 ? rest.slice(slash) : '';
  }
  return unescapeError(rest, 'path');
}

/** Why Go's url.Parse refuses `raw` (as `parse "<url>": <reason>`), or undefined when it parses. */
export function goUrlParseError(raw: string): string | undefined {
  const bytes = Buffer.from(raw, 'utf8').toString('latin1');
  const hash = bytes.indexOf('#');
  const u = hash >= 0 ? bytes.slice(0, hash) : bytes;
  const reason = parseError(u);
  if (reason) return `parse ${goQuote(u)}: ${reason}`;
  const fragmentProblem = hash >= 0 ? unescapeError(bytes.slice(hash + 1), 'fragment') : undefined;
  return fragmentProblem ? `parse ${goQuote(bytes)}: ${fragmentProblem}` : undefined;
}

/** strconv.Quote of a JavaScript string (its UTF-8 bytes). */
export const goQuoteText = (text: string): string => goQuote(Buffer.from(text, 'utf8').toString('latin1'));
