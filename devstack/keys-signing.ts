// The project's JWT signing keys, as Supabase Auth keeps them now: asymmetric keys (ES256, or
// RS256 as another project's signing_keys.json may hold), each
// with a `kid`, in states standby → current → previously used → revoked. Sessions are signed
// by the current key; tokens are verified by their `kid` against the current and previously
// used keys only; the JWKS publishes the public halves a verifier may need. Tests move keys
// through the states (rotate, revoke) on the devstack's injected clock.
import { randomUUID } from 'node:crypto';

import {
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';

import type { DevstackClock } from './clock';
import { parseJsonText } from './json';

export type SigningKeyState = 'standby' | 'current' | 'previous' | 'revoked';
/** The algorithms a signing-keys file may hold (what `supabase gen signing-key` makes). */
export type SigningAlgorithm = 'ES256' | 'RS256';

/** A signing key as the dashboard lists it (never the private half). */
export interface SigningKeyInfo {
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
  readonly state: SigningKeyState;
  /** When the key entered its state (the devstack clock's ms). */
  readonly since: number;
}

interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  state: SigningKeyState;
  since: number;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** What new keys (standby keys, rotations) are: `supabase gen signing-key --algorithm ES256`. */
const ALGORITHM = 'ES256';

/** The algorithm a JWK's key type stands for: EC P-256 is ES256, RSA is RS256. */
function algorithmOf(jwk: JWK): SigningAlgorithm | undefined {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'RSA') return 'RS256';
  return undefined;
}

/** A JWKS entry as hosted serves it: the public half, verify-only, importable by WebCrypto. */
function publicHalf(jwk: JWK, kid: string): JWK {
  const common = { use: 'sig', key_ops: ['verify'], ext: true, kid };
  if (jwk.kty === 'RSA' && jwk.n && jwk.e) {
    return { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RS256', ...common };
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) {
    throw new Error(`signing key ${kid}: only ES256 (EC P-256) and RS256 (RSA) keys are supported`);
  }
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, alg: ALGORITHM, ...common };
}

/**
 * The private key of a file entry alone: the file's key_ops name both halves' uses ("sign",
 * "verify"), which WebCrypto refuses on a private key.
 */
function privatePart(jwk: JWK): JWK {
  if (jwk.kty === 'RSA') {
    const parts: JWK = { kty: 'RSA' };
    for (const name of ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const) {
      const value = jwk[name];
      if (typeof value === 'string') parts[name] = value;
    }
    return parts;
  }
  return { kty: 'EC', crv: 'P-256', x: jwk.x ?? '', y: jwk.y ?? '', d: jwk.d ?? '' };
}

/** Checks one entry of a signing-keys file (a JWK with its private half). */
function parseKeyFileEntry(value: unknown, index: number): JWK & { kid: string } {
  const where = `signing key #${index + 1}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${where} must be a JWK object`);
  }
  const jwk = value as JWK;
  if (typeof jwk.kid !== 'string' || jwk.kid === '') throw new Error(`${where} needs a kid`);
  const alg = algorithmOf(jwk);
  if (jwk.alg !== undefined && (alg === undefined || jwk.alg !== alg)) {
    throw new Error(
      `${where} (${jwk.kid}): alg ${String(jwk.alg)} is not supported, only ES256 and RS256`,
    );
  }
  if (typeof jwk.d !== 'string') throw new Error(`${where} (${jwk.kid}) has no private part (d)`);
  return { ...jwk, kid: jwk.kid };
}

/** Parses a signing-keys file (a JSON array of private JWKs, as the CLI's config names). */
export function parseSigningKeysFile(text: string, source: string): (JWK & { kid: string })[] {
  const json = parseJsonText(text);
  if (!json.ok) throw new Error(`${source}: not JSON`);
  const parsed = json.value;
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new Error(`${source}: must be a non-empty JSON array of JWKs`);
  }
  const keys = parsed.map(parseKeyFileEntry);
  const kids = new Set(keys.map((k) => k.kid));
  if (kids.size !== keys.length) throw new Error(`${source}: two keys share a kid`);
  return keys;
}

export class SigningKeyRing {
  private readonly keys: SigningKey[] = [];

  private constructor(private readonly clock: DevstackClock) {}

  /**
   * The ring from private JWKs: the first signs (current), the others are previously used
   * keys that still verify (GoTrue's order for a key file: the first one is in use).
   */
  static async fromJwks(jwks: readonly JWK[], clock: DevstackClock): Promise<SigningKeyRing> {
    const ring = new SigningKeyRing(clock);
    for (const [index, raw] of jwks.entries()) {
      const jwk = parseKeyFileEntry(raw, index);
      const publicJwk = publicHalf(jwk, jwk.kid); // checks kty, crv and the public parts
      const alg = algorithmOf(publicJwk) ?? ALGORITHM;
      const privateKey = await importJWK(privatePart(jwk), alg);
      if (!isCryptoKey(privateKey)) throw new Error(`signing key ${jwk.kid}: not a private key`);
      ring.keys.push({
        kid: jwk.kid,
        alg,
        state: index === 0 ? 'current' : 'previous',
        since: clock.now(),
        privateKey,
        publicJwk,
      });
    }
    if (ring.keys.length === 0) throw new Error('a project needs at least one signing key');
    return ring;
  }

  list(): SigningKeyInfo[] {
    return this.keys.map(({ kid, alg, state, since }) => ({ kid, algorithm: alg, state, since }));
  }

  get currentKid(): string {
    return this.current().kid;
  }

  /** Creates a standby key (the dashboard's "Create standby key"); its kid. */
  async addStandby(): Promise<string> {
    if (this.keys.some((k) => k.state === 'standby')) {
      throw new Error('there is already a standby key: rotate to it or revoke it first');
    }
    const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
    const kid = randomUUID();
    this.keys.push({
      kid,
      alg: ALGORITHM,
      state: 'standby',
      since: this.clock.now(),
      privateKey,
      publicJwk: publicHalf(await exportJWK(publicKey), kid),
    });
    return kid;
  }

  /**
   * "Rotate keys": the standby key becomes current and the current one previously used, so
   * tokens it signed keep verifying until it is revoked. Creates a standby key first when
   * there is none (the dashboard needs one; tests need not care). The new current kid.
   */
  async rotate(): Promise<string> {
    if (!this.keys.some((k) => k.state === 'standby')) await this.addStandby();
    const now = this.clock.now();
    const current = this.current();
    const standby = this.keys.find((k) => k.state === 'standby');
    if (!standby) throw new Error('no standby key to rotate to');
    current.state = 'previous';
    current.since = now;
    standby.state = 'current';
    standby.since = now;
    return standby.kid;
  }

  /**
   * Revokes a previously used (or standby) key: tokens it signed are refused from now on.
   * The current key cannot be revoked, as on hosted: rotate away from it first.
   */
  revoke(kid: string): void {
    const key = this.keys.find((k) => k.kid === kid);
    if (!key) throw new Error(`no signing key ${kid}`);
    if (key.state === 'current') throw new Error('the current signing key cannot be revoked');
    key.state = 'revoked';
    key.since = this.clock.now();
  }

  /** Signs with the current key; the header carries its kid. */
  async sign(payload: JWTPayload): Promise<string> {
    const key = this.current();
    return new SignJWT(payload)
      .setProtectedHeader({ alg: key.alg, typ: 'JWT', kid: key.kid })
      .sign(key.privateKey);
  }

  /**
   * The public key that may verify a token with this kid: current or previously used only
   * (a standby key signs nothing yet; a revoked one must verify nothing).
   */
  verificationKey(kid: string): JWK | undefined {
    const key = this.keys.find((k) => k.kid === kid);
    return key && (key.state === 'current' || key.state === 'previous') ? key.publicJwk : undefined;
  }

  /** Whether any key of the ring (in any state) signs with `alg`. */
  holds(alg: string): boolean {
    return this.keys.some((k) => k.alg === alg);
  }

  /**
   * The JWKS: the public halves of the standby, current and previously used keys. The
   * standby key is published ahead of a rotation so verifiers that cache the set (supabase-js
   * for 10 minutes) know it before the first token it signs; revoked keys are gone.
   */
  jwks(): { keys: JWK[] } {
    const order: SigningKeyState[] = ['current', 'standby', 'previous'];
    return {
      keys: order.flatMap((state) =>
        this.keys.filter((k) => k.state === state).map((k) => ({ ...k.publicJwk })),
      ),
    };
  }

  private current(): SigningKey {
    const key = this.keys.find((k) => k.state === 'current');
    if (!key) throw new Error('no current signing key');
    return key;
  }
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return typeof value === 'object' && value !== null && 'algorithm' in value && 'type' in value;
}
