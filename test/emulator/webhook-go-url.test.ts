/**
 * emulator/webhooks/go-url.ts against Go's own net/url tests (golang/go src/net/url/url_test.go: TestParseErrors,
 * TestRejectControlCharacters, TestInvalidUserPassword) and the parser's source (url.go Parse, parse,
 * parseAuthority, parseHost, unescape; Go 1.26), with the exact error text Go prints: `parse "<url>": <reason>`.
 * Harvester's image webhook quotes it as `url is invalid: <that>` (V6 of docs/design/harvester-images.md).
 */
import { strict as assert } from 'node:assert';
import { goQuote, goQuoteText, goUrlParseError } from '../../emulator/webhooks/go-url';

/** A URL and what Go's url.Parse answers: undefined when it parses, else the reason after `parse "<quoted>": `. */
type Case = [url: string, reason?: string, quoted?: string];

function pin(cases: Case[]): void {
  for (const [url, reason, quoted] of cases) {
    const want = reason === undefined ? undefined : `parse ${quoted ?? JSON.stringify(url)}: ${reason}`;
    it(`${JSON.stringify(url)} → ${reason ?? 'parses'}`, () => assert.equal(goUrlParseError(url), want));
  }
}

describe('Go url.Parse (emulator/webhooks/go-url.ts)', () => {
  describe("Go's TestParseErrors", () => {
    pin([
      ['http://[::1]'],
      ['http://[::1]:80'],
      ['http://[::1]:namedport', 'invalid port ":namedport" after host'],
      ['http://x:namedport', 'invalid port ":namedport" after host'],
      ['http://[::1]/'],
      ['http://[::1]a', 'invalid port "a" after host'],
      ['http://[::1]%23', 'invalid port "%23" after host'],
      ['http://[::1%25en0]'],
      ['http://[::1]:'],
      ['http://x:'],
      ['http://[::1]:%38%30', 'invalid port ":%38%30" after host'],
      ['http://[::1%25%41]'],
      ['http://[%10::1]', 'invalid URL escape "%10"'],
      ['http://[::1]/%48'],
      ['http://%41:8080/', 'invalid URL escape "%41"'],
      ['mysql://x@y(z:123)/foo', 'invalid port ":123)" after host'],
      ['mysql://x@y(1.2.3.4:123)/foo', 'invalid port ":123)" after host'],
      [' http://foo.com', 'first path segment in URL cannot contain colon'],
      ['ht tp://foo.com', 'first path segment in URL cannot contain colon'],
      ['ahttp://foo.com'],
      ['1http://foo.com', 'first path segment in URL cannot contain colon'],
      ['http://[]%20%48%54%54%50%2f%31%2e%31%0a/', 'invalid port "%20%48%54%54%50%2f%31%2e%31%0a" after host'],
      ['http://a b.com/', 'invalid character " " in host name'],
      ['cache_object://foo', 'first path segment in URL cannot contain colon'],
      ['cache_object:foo', 'first path segment in URL cannot contain colon'],
      ['cache_object:foo/bar', 'first path segment in URL cannot contain colon'],
      ['cache_object/:foo/bar'],
    ]);
  });

  describe("Go's TestRejectControlCharacters and TestInvalidUserPassword", () => {
    pin([
      ['http://foo.com/?foo\nbar', 'net/url: invalid control character in URL', '"http://foo.com/?foo\\nbar"'],
      ['http\r://foo.com/', 'net/url: invalid control character in URL', '"http\\r://foo.com/"'],
      ['http://foo\x7f.com/', 'net/url: invalid control character in URL', '"http://foo\\x7f.com/"'],
      ['http://h/\x07\x0b\x01', 'net/url: invalid control character in URL', '"http://h/\\a\\v\\x01"'],
      ['http://foo.com/ctl\x80'],
      ['http://user^:passwo^rd@foo.com/', 'net/url: invalid userinfo'],
    ]);
  });

  describe('the scheme, the opaque form and the relative reference', () => {
    pin([
      ['not a url'],
      [':foo', 'missing protocol scheme'],
      ['a:b/c'],
      ['1a:b', 'first path segment in URL cannot contain colon'],
      ['./1a:b'],
      ['a/b:c'],
      ['?x:y'],
      ['mailto:%zz'],
      ['http:%zz?%zz'],
      ['http:/%zz', 'invalid URL escape "%zz"'],
      ['/%zz', 'invalid URL escape "%zz"'],
      ['//h/%zz', 'invalid URL escape "%zz"'],
      ['http:///%zz', 'invalid URL escape "%zz"'],
      ['file:///etc/x.img'],
      ['//a b/', 'invalid character " " in host name'],
      ['https://example.com/a%20b.img?x=%zz'],
      ['https://example.com/a?b/%zz'],
    ]);
  });

  describe('escapes in the path', () => {
    pin([
      ['http://h/a%2', 'invalid URL escape "%2"'],
      ['http://h/a%', 'invalid URL escape "%"'],
      ['http://h/a%zzz', 'invalid URL escape "%zz"'],
      ['http://h/%41%4G', 'invalid URL escape "%4G"'],
      ['http://h/%G4', 'invalid URL escape "%G4"'],
      ['http://h/%2F%fa%Af'],
      ['http://h/%zé', 'invalid URL escape "%z\\xc3"', '"http://h/%zé"'],
      ['http://h/é%zz', 'invalid URL escape "%zz"', '"http://h/é%zz"'],
      ['http://h/😀%zz', 'invalid URL escape "%zz"', '"http://h/😀%zz"'],
    ]);
  });

  describe('the fragment: checked after the rest, which is quoted without it', () => {
    pin([
      ['http://a{b/x#frag', 'invalid character "{" in host name', '"http://a{b/x"'],
      ['1a:b#%zz', 'first path segment in URL cannot contain colon', '"1a:b"'],
      ['http://h/x#%zz', 'invalid URL escape "%zz"'],
      ['http://h/x#a#%zz', 'invalid URL escape "%zz"'],
      ['http://h/%zz#x', 'invalid URL escape "%zz"', '"http://h/%zz"'],
      ['http://h/x#ok%20!'],
      ['http://h/x#a\x01b'],
      ['http://h/x#'],
      ['#%zz', 'invalid URL escape "%zz"'],
    ]);
  });

  describe('the host', () => {
    pin([
      ['http://h:80/x'],
      ['http://h:8a/x', 'invalid port ":8a" after host'],
      ['http://h:/x'],
      ['http://:80/x'],
      ['http://a{b/x', 'invalid character "{" in host name'],
      ['http://a}b', 'invalid character "}" in host name'],
      ['http://a/b{'],
      ['http://a_b-c.d~e!$&\'()*+,;=<>"/'],
      ['http://ü.example/'],
      ['http://%C3%BC.example/'],
      ['http://a%25b/'],
      ['http://%7e/', 'invalid URL escape "%7e"'],
      ['http://%80/'],
      ['http://a{%zz/', 'invalid character "{" in host name'],
      ['http://%zz{/', 'invalid URL escape "%zz"'],
      ['http://a%zz:80/', 'invalid URL escape "%zz"'],
      ['http://a:b:80/', 'invalid port ":b:80" after host'],
      ['HTTPS://a:1:2/', 'invalid port ":1:2" after host'],
      ['mongodb://a:1,b:2/'],
      ['mongodb://a:b,c:2/'],
      ['mongodb://a:1,b:x/', 'invalid port ":x" after host'],
    ]);
  });

  describe('a bracketed host: only an IPv6 address', () => {
    pin([
      ['http://[::1', "missing ']' in host"],
      ['http://a[::1]/', 'invalid IP-literal'],
      ['http://[::1][/', 'invalid IP-literal'],
      ['http://[192.168.0.1]/', 'invalid IP-literal'],
      ['http://[::ffff:192.168.0.1]:8080/'],
      ['http://[fe80::1%25en0]:8080/'],
      ['http://[fe80::1%25%20]/'],
      ['http://[fe80::1%25%2F]/', 'invalid URL escape "%2F"'],
      ['http://[fe80::1%25%C3%BC]/', 'invalid URL escape "%C3"'],
      ['http://[fe80::1%25a{]/', 'invalid character "{" in host name'],
      ['http://[fe80::1%25%zz]/', 'invalid URL escape "%zz"'],
      ['http://[fe{::1%25en0]/', 'invalid character "{" in host name'],
      ['http://[fe80::1%25]/', 'invalid host: ParseAddr("fe80::1%"): zone must be a non-empty string'],
      ['http://[%25en0]/', 'invalid host: ParseAddr("%en0"): missing IPv6 address'],
      ['http://[%25%41]/', 'invalid host: ParseAddr("%A"): missing IPv6 address'],
      ['http://[google]/', 'invalid host: ParseAddr("google"): unable to parse IP'],
      ['http://[%41]/', 'invalid URL escape "%41"'],
      // The emulator's reason for a malformed address (netip may name another): see go-url.ts.
      ['http://[::%C3%BC]/', 'invalid host: ParseAddr("::ü"): unexpected character'],
      ['http://[a.b]/', 'invalid host: ParseAddr("a.b"): unexpected character'],
      ['http://[::1]:80:/', 'invalid port ":80:" after host'],
    ]);
  });

  describe('the userinfo: checked after the host, split at its first colon', () => {
    pin([
      ['http://user:p@ss@host/'],
      ['http://a-._~!$&\'()*+,;=%41:b@h/'],
      ['http://a^b@c d/', 'invalid character " " in host name'],
      ['http://a b@h/', 'net/url: invalid userinfo'],
      ['http://é@h/', 'net/url: invalid userinfo', '"http://é@h/"'],
      ['http://a%zz@h/', 'invalid URL escape "%zz"'],
      ['http://a%3:b@h/', 'invalid URL escape "%3"'],
      ['http://u:p%z@h/', 'invalid URL escape "%z"'],
      ['http://u:p:%zz@h/', 'invalid URL escape "%zz"'],
      ['http://@h/'],
    ]);
  });

  // Each boundary Go handles with an index found by Index/LastIndex: the character at index 0 or a byte at 0x80.
  describe('boundaries: a "#" first, a colon first, a byte at 0x80', () => {
    pin([
      // Parse cuts at the first "#" even at index 0: "" parses, and a fragment is only %-checked.
      ['#a:b'],
      // The fragment alone is checked, not the opaque part or the query before it (which Go never decodes).
      ['mailto:%zz#x'],
      ['http://h/?%zz#ok'],
      // A host that is only a port: the colon at index 0 is still the port's.
      ['http://:8a/', 'invalid port ":8a" after host'],
      // A userinfo starting with ":": an empty username, and the password is all after it.
      ['http://:%zz@h/', 'invalid URL escape "%zz"'],
      ['http://:p%z@h/', 'invalid URL escape "%z"'],
      // unescape refuses only ASCII bytes in a host: U+0400 is the bytes D0 80.
      ['http://\u0400/'],
      // A bracketed host's non-ASCII %-escapes before the zone are a host's (allowed), not a zone's (refused):
      // netip then refuses the address (the emulator's reason; see go-url.ts).
      ['http://[::%C3%BC%25en0]/', 'invalid host: ParseAddr("::ü%en0"): unexpected character'],
    ]);
  });

  describe("strconv.Quote of a byte string", () => {
    it('escapes quotes, backslashes, control bytes and invalid UTF-8 as Go does; keeps valid runes', () => {
      assert.equal(goQuote('a"b\\c\t\n\r\x08\x0c\x00\x1f'), '"a\\"b\\\\c\\t\\n\\r\\b\\f\\x00\\x1f"');
      assert.equal(goQuote('\xff\x80\xc3'), '"\\xff\\x80\\xc3"');
      assert.equal(goQuote('\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80'), '"ü€😀"');
      assert.equal(goQuote('\xe0\xa0\x80'), '"\u0800"', 'U+0800: an E0 lead byte starts three bytes');
      assert.equal(goQuote('\xe2\x82x'), '"\\xe2\\x82x"');
      assert.equal(goQuoteText('é"'), '"é\\""');
    });
  });
});
