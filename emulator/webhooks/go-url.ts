/**
 * The errors of Go's `net/url.Parse`, which Harvester's image webhook quotes in `url is invalid: %s` (V6 of
 * docs/design/harvester-images.md §"Admission rules"). Go's parser is lenient: "not a url" is a valid relative
 * reference and only these shapes fail — a control character, a leading ":", a colon in a scheme-less first
 * segment, a bad %-escape, a character a host name may not hold, a non-numeric port. The error text is Go's own
 * (`parse "<url>": <reason>`), so a denial reads as a real cluster's.
 */

/** Go's strconv.Quote for the ASCII printable and control characters a URL holds. */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u007f/g, '\\x7f').replace(/\\u00([0-1][0-9a-f])/g, '\\x$1');
}

/** Characters net/url's shouldEscape lets through unescaped in a host (mode encodeHost). */
const HOST_CHARS = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"%]$/;

/** The first bad %-escape of `s`, quoted as url.EscapeError prints it, or undefined. */
function badEscape(s: string): string | undefined {
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '%') continue;
    const hex = s.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return `invalid URL escape ${goQuote(s.slice(i, i + 3))}`;
    i += 2;
  }
  return undefined;
}

function hostError(authority: string): string | undefined {
  const at = authority.lastIndexOf('@');
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  if (at >= 0 && !/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(authority.slice(0, at))) return 'net/url: invalid userinfo';
  let name = host;
  if (!host.startsWith('[')) {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) {
      const port = host.slice(colon);
      if (!/^:\d*$/.test(port)) return `invalid port ${goQuote(port)} after host`;
      name = host.slice(0, colon);
    }
  }
  const escape = badEscape(name);
  if (escape) return escape;
  for (const c of name) if (c.charCodeAt(0) < 0x80 && !HOST_CHARS.test(c)) return `invalid character ${goQuote(c)} in host name`;
  return undefined;
}

/** Why Go's url.Parse refuses `raw` (as `parse "<raw>": <reason>`), or undefined when it parses. */
export function goUrlParseError(raw: string): string | undefined {
  const reason = ((): string | undefined => {
    if (/[\x00-\x1f\x7f]/.test(raw)) return 'net/url: invalid control character in URL';
    const hash = raw.indexOf('#');
    const [beforeFragment, fragment] = hash >= 0 ? [raw.slice(0, hash), raw.slice(hash + 1)] : [raw, ''];
    const fragmentError = badEscape(fragment);
    if (fragmentError) return fragmentError;
    if (beforeFragment.startsWith(':')) return 'missing protocol scheme';
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(beforeFragment)?.[0];
    let rest = scheme ? beforeFragment.slice(scheme.length) : beforeFragment;
    const q = rest.indexOf('?');
    if (q >= 0) rest = rest.slice(0, q);
    if (!scheme && !rest.startsWith('/')) {
      const colon = rest.indexOf(':');
      const slash = rest.indexOf('/');
      if (colon >= 0 && (slash < 0 || colon < slash)) return 'first path segment in URL cannot contain colon';
    }
    if (rest.startsWith('//')) {
      const end = rest.indexOf('/', 2);
      const authority = end >= 0 ? rest.slice(2, end) : rest.slice(2);
      const err = hostError(authority);
      if (err) return err;
      rest = end >= 0 ? rest.slice(end) : '';
    }
    return badEscape(rest);
  })();
  return reason ? `parse ${goQuote(raw)}: ${reason}` : undefined;
}
