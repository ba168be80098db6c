// Phoenix frames as realtime-js speaks them: vsn 2.0.0 JSON arrays (plus the binary
// broadcast frames, kind 3 from the client and kind 4 to it) and vsn 1.0.0 JSON objects.
import { isPlainObject, parseJsonText } from '../json';

export type Vsn = '1.0.0' | '2.0.0';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One Phoenix message. `payload` is JSON except for binary broadcast payloads. */
export interface Frame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: JsonObject;
}

/** A client broadcast push (binary kind 3): the user event and its payload. */
export interface BroadcastPush {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  /** Parsed JSON, or raw bytes when the client sent an ArrayBuffer payload. */
  payload: Json | Uint8Array;
  /** JSON metadata the client allowed through (usually absent). */
  meta: JsonObject | undefined;
}

export type Incoming =
  | { kind: 'frame'; frame: Frame }
  | { kind: 'broadcast'; push: BroadcastPush }
  | { kind: 'invalid'; reason: string };

const KIND_USER_BROADCAST_PUSH = 3;
const KIND_USER_BROADCAST = 4;
const ENCODING_BINARY = 0;
const ENCODING_JSON = 1;

function refOf(value: Json | undefined): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return null;
}

function frameFrom(parts: {
  join_ref: Json | undefined;
  ref: Json | undefined;
  topic: Json | undefined;
  event: Json | undefined;
  payload: Json | undefined;
}): Incoming {
  if (typeof parts.topic !== 'string' || typeof parts.event !== 'string') {
    return { kind: 'invalid', reason: 'frame without topic or event' };
  }
  const payload = parts.payload === undefined || parts.payload === null ? {} : parts.payload;
  if (!isPlainObject(payload)) return { kind: 'invalid', reason: 'payload is not an object' };
  return {
    kind: 'frame',
    frame: {
      joinRef: refOf(parts.join_ref),
      ref: refOf(parts.ref),
      topic: parts.topic,
      event: parts.event,
      payload,
    },
  };
}

/** Parsed JSON, or undefined when it is not JSON or nests too deeply to relay safely. */
function parseJson(text: string): Json | undefined {
  // Re-serialising a frame for each subscriber recurses per level: refuse absurd nesting.
  const parsed = parseJsonText(text);
  return parsed.ok ? (parsed.value as Json) : undefined;
}

function decodeText(text: string, vsn: Vsn): Incoming {
  const parsed = parseJson(text);
  if (vsn === '2.0.0') {
    if (!Array.isArray(parsed) || parsed.length !== 5) {
      return { kind: 'invalid', reason: 'expected [join_ref, ref, topic, event, payload]' };
    }
    const [join_ref, ref, topic, event, payload] = parsed;
    return frameFrom({ join_ref, ref, topic, event, payload });
  }
  if (!isPlainObject(parsed)) return { kind: 'invalid', reason: 'expected a message object' };
  return frameFrom({
    join_ref: parsed.join_ref,
    ref: parsed.ref,
    topic: parsed.topic,
    event: parsed.event,
    payload: parsed.payload,
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeBinary(bytes: Uint8Array): Incoming {
  // u8 kind, u8 len(join_ref), u8 len(ref), u8 len(topic), u8 len(event), u8 len(meta),
  // u8 encoding, then the five strings and the payload.
  const HEADER = 7;
  if (bytes.length < HEADER || bytes[0] !== KIND_USER_BROADCAST_PUSH) {
    return { kind: 'invalid', reason: 'unsupported binary frame' };
  }
  const lengths = [bytes[1], bytes[2], bytes[3], bytes[4], bytes[5]].map((n) => n ?? 0);
  const encoding = bytes[6];
  // The client writes these strings one charCode per byte, so read them back as Latin-1.
  const strings: string[] = [];
  let offset = HEADER;
  for (const length of lengths) {
    if (offset + length > bytes.length) return { kind: 'invalid', reason: 'truncated frame' };
    strings.push(Buffer.from(bytes.subarray(offset, offset + length)).toString('latin1'));
    offset += length;
  }
  const [joinRef = '', ref = '', topic = '', event = '', metaText = ''] = strings;
  const body = bytes.subarray(offset);
  let payload: Json | Uint8Array;
  if (encoding === ENCODING_JSON) {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return { kind: 'invalid', reason: 'payload is not UTF-8' };
    }
    const parsed = text === '' ? null : parseJson(text);
    if (parsed === undefined) return { kind: 'invalid', reason: 'payload is not JSON' };
    payload = parsed;
  } else if (encoding === ENCODING_BINARY) {
    payload = new Uint8Array(body);
  } else {
    return { kind: 'invalid', reason: 'unknown payload encoding' };
  }
  let meta: JsonObject | undefined;
  if (metaText !== '') {
    const parsedMeta = parseJson(metaText);
    if (!isPlainObject(parsedMeta)) return { kind: 'invalid', reason: 'metadata is not JSON' };
    meta = parsedMeta;
  }
  return {
    kind: 'broadcast',
    push: { joinRef: joinRef || null, ref: ref || null, topic, event, payload, meta },
  };
}

/** Decodes one WebSocket message; never throws. */
export function decodeMessage(data: Buffer | string, isBinary: boolean, vsn: Vsn): Incoming {
  if (isBinary) {
    if (typeof data === 'string') return { kind: 'invalid', reason: 'unexpected text' };
    return decodeBinary(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  return decodeText(typeof data === 'string' ? data : data.toString('utf8'), vsn);
}

/** Encodes a frame as the client's serializer expects it. */
export function encodeFrame(frame: Frame, vsn: Vsn): string {
  if (vsn === '2.0.0') {
    return JSON.stringify([frame.joinRef, frame.ref, frame.topic, frame.event, frame.payload]);
  }
  return JSON.stringify({
    join_ref: frame.joinRef,
    ref: frame.ref,
    topic: frame.topic,
    event: frame.event,
    payload: frame.payload,
  });
}

/**
 * A binary kind-4 broadcast (vsn 2 only): how raw-bytes payloads reach the client. Undefined
 * when topic or event do not fit the one-byte lengths.
 */
export function encodeBinaryBroadcast(
  topic: string,
  event: string,
  payload: Uint8Array,
  meta: JsonObject | undefined,
): Buffer | undefined {
  const topicBytes = Buffer.from(topic, 'utf8');
  const eventBytes = Buffer.from(event, 'utf8');
  // Each length is one byte: an over-long metadata object is dropped rather than cut.
  const metaText = meta ? JSON.stringify(meta) : '';
  const metaBytes = Buffer.from(Buffer.byteLength(metaText) > 255 ? '' : metaText, 'utf8');
  if (topicBytes.length > 255 || eventBytes.length > 255) return undefined;
  const header = Buffer.from([
    KIND_USER_BROADCAST,
    topicBytes.length,
    eventBytes.length,
    metaBytes.length,
    ENCODING_BINARY,
  ]);
  return Buffer.concat([header, topicBytes, eventBytes, metaBytes, payload]);
}
