/**
 * Bearer-token authentication with optional expiry, as an RKE2/Rancher-issued kubeconfig token behaves:
 * a valid token is accepted, an expired or unknown one gets the real apiserver's 401 Status
 * (`{"reason":"Unauthorized","message":"Unauthorized"}`), on every path.
 *
 * Service-account tokens (emulator/rbac/service-account-tokens.ts) are a second authenticator, asked only when the
 * token is not one of the table's, so the admin path costs one Map lookup as before.
 *
 * Expiry is measured on the emulator's Clock, so tests with a ManualClock can expire a token by advancing time.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../clock';
import { unauthorized } from './errors';

interface TokenEntry {
  user: string;
  /** Epoch ms after which the token is refused; undefined = never. */
  expiresAt?: number;
  revoked: boolean;
}

/** The result of authenticating one request. */
export interface Authenticated {
  user: string;
  /** True when no Authorization header was sent (only allowed on public paths). */
  anonymous: boolean;
  /**
   * Set for users RBAC decides for (service-account tokens, impersonated users), with their groups. Unset for
   * the emulator's own tokens: they stand for a cluster admin (system:masters), which no authorizer restricts.
   */
  groups?: string[];
}

/** A second token authenticator (service-account tokens): the user and groups of a token, or undefined. */
export type TokenAuthenticator = (token: string) => { user: string; groups: string[] } | undefined;

/** The emulator's token table: issue, expire, rotate. Tokens are opaque random strings. */
export class TokenTable {
  private readonly tokens = new Map<string, TokenEntry>();
  private currentToken: string | undefined;

  constructor(private readonly clock: Clock) {}

  /** Issue a token for `user`, valid for `ttlMs` (forever when unset). It becomes the current token. */
  issue(options: { ttlMs?: number; user?: string; token?: string } = {}): string {
    const token = options.token ?? `emu-${randomBytes(24).toString('base64url')}`;
    const expiresAt = options.ttlMs !== undefined ? this.clock.now().getTime() + options.ttlMs : undefined;
    this.tokens.set(token, { user: options.user ?? 'admin', expiresAt, revoked: false });
    this.currentToken = token;
    return token;
  }

  /** The most recently issued token (what the kubeconfig carries). */
  current(): string {
    if (this.currentToken === undefined) throw new Error('TokenTable.current(): no token has been issued yet; call issue() first');
    return this.currentToken;
  }

  /** Make `token` (default: the current one) invalid from now on. */
  expire(token = this.current()): void {
    const entry = this.tokens.get(token);
    if (entry) entry.revoked = true;
  }

  /**
   * Issue a new current token. The old one stays valid unless `expireOld` is set, like a credential rotation
   * where the previous kubeconfig keeps working until its own expiry.
   */
  rotate(options: { ttlMs?: number; expireOld?: boolean } = {}): string {
    const old = this.currentToken;
    const user = old ? this.tokens.get(old)?.user : undefined;
    const next = this.issue({ ttlMs: options.ttlMs, user });
    if (old && options.expireOld) this.expire(old);
    return next;
  }

  /** The user a token maps to, or undefined if it is unknown, revoked or past its expiry. */
  userFor(token: string): string | undefined {
    const entry = this.tokens.get(token);
    if (!entry || entry.revoked) return undefined;
    if (entry.expiresAt !== undefined && this.clock.now().getTime() >= entry.expiresAt) return undefined;
    return entry.user;
  }
}

/**
 * Authenticate a request. A presented token must be valid (401 otherwise, even on public paths, as the real
 * authenticator rejects bad credentials before anonymous access is considered). Without a token only
 * `publicPath` requests pass.
 */
export function authenticate(req: IncomingMessage, tokens: TokenTable, publicPath: boolean, others?: TokenAuthenticator): Authenticated {
  const header = req.headers.authorization;
  if (header === undefined || header === '') {
    if (publicPath) return { user: 'system:anonymous', anonymous: true };
    throw unauthorized();
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const user = match ? tokens.userFor(match[1]) : undefined;
  if (user !== undefined) return { user, anonymous: false };
  const other = match && others ? others(match[1]) : undefined;
  if (other === undefined) throw unauthorized();
  return { user: other.user, anonymous: false, groups: other.groups };
}
