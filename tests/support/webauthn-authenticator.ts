// A software WebAuthn authenticator for tests: answers creation options with a "none"
// attestation over a fresh P-256 key and request options with an ES256 assertion, as a
// platform authenticator would (user present and verified, discoverable: it remembers the
// user handle it was created for). Keys are node:crypto's; CBOR is @simplewebauthn's.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

import { isoCBOR } from '@simplewebauthn/server/helpers';

/** A PublicKeyCredential as toJSON() gives it: this authenticator's id around a response. */
interface CredentialJson<Response> {
  id: string;
  rawId: string;
  type: 'public-key';
  response: Response;
  clientExtensionResults: Record<string, never>;
}

export type RegistrationJson = CredentialJson<{
  clientDataJSON: string;
  attestationObject: string;
  transports: string[];
}>;

export type AssertionJson = CredentialJson<{
  clientDataJSON: string;
  authenticatorData: string;
  signature: string;
  userHandle?: string;
}>;

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

export class SoftwareWebAuthnAuthenticator {
  readonly credentialId: Buffer;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private signCount = 0;
  /** The user handle of the last create() (base64url), sent back in assertions. */
  userHandle: string | undefined;

  constructor(
    private readonly rpId: string,
    private readonly origin: string,
    credentialId: Buffer = randomBytes(16),
  ) {
    this.credentialId = credentialId;
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string): Buffer {
    return Buffer.from(
      JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }),
      'utf8',
    );
  }

  private authData(flags: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.signCount);
    return Buffer.concat([
      sha256(this.rpId),
      Buffer.from([flags]),
      count,
      attested ?? Buffer.alloc(0),
    ]);
  }

  private credential<Response>(response: Response): CredentialJson<Response> {
    const id = b64url(this.credentialId);
    return { id, rawId: id, type: 'public-key', response, clientExtensionResults: {} };
  }

  /** navigator.credentials.create(): the options' challenge and user bound to a new key. */
  create(options: { challenge: string; user: { id: string } }): RegistrationJson {
    this.userHandle = options.user.id;
    const jwk = this.publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, new Uint8Array(Buffer.from(jwk.x ?? '', 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y ?? '', 'base64url'))],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      Buffer.from(isoCBOR.encode(coseKey)),
    ]);
    const authData = this.authData(FLAG_UP | FLAG_UV | FLAG_AT, attested);
    const attestation = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    return this.credential({
      clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge)),
      attestationObject: b64url(attestation),
      transports: ['internal'],
    });
  }

  /** navigator.credentials.get(): an ES256 signature over authData and the client data. */
  get(options: { challenge: string }): AssertionJson {
    this.signCount += 1;
    const clientData = this.clientData('webauthn.get', options.challenge);
    const authData = this.authData(FLAG_UP | FLAG_UV);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientData)]),
      this.privateKey,
    );
    return this.credential({
      clientDataJSON: b64url(clientData),
      authenticatorData: b64url(authData),
      signature: b64url(signature),
      ...(this.userHandle ? { userHandle: this.userHandle } : {}),
    });
  }
}
