// Broadcast from the database without logical replication: the devstack (never the
// migrations) puts an AFTER INSERT trigger on realtime.messages that NOTIFYs the new row
// itself when it fits well inside NOTIFY's 8000 bytes (a row as a device needs it does),
// and only its id otherwise, for the relay to read once, as the admin. Either way the
// message is handed to the hub, which fans it out to the topic's subscribers on its cached
// join-time permissions: no per-subscriber database work. NOTIFY is sent at commit, so a
// rolled-back message is never heard. Rows older than 3 days are deleted on the devstack's
// clock, as hosted drops its daily partitions. Only SQL can NOTIFY, and no API caller has
// SQL (PostgREST reaches the public schema's tables and functions, nothing else), so what
// arrives on the channel is the trigger's.
import type { DevstackClock } from '../clock';
import { isPlainObject, jsonNestsDeeperThan, MAX_JSON_DEPTH, parseJsonText } from '../json';
import { execRacingDdl, type SqlEngine } from '../sql-engine';
import { BatchQueue } from './batch-queue';
import type { Json } from './protocol';
import { triggerFunctionSql } from './trigger-function-sql';

export const MESSAGES_NOTIFY_CHANNEL = 'devstack_realtime_messages';
const TRIGGER_NAME = 'devstack_realtime_messages';
/** Hosted drops realtime.messages partitions older than this. */
export const MESSAGE_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;
const CLEANUP_EVERY_MS = 60 * 60 * 1000;
/** Messages read per query; bigger bursts are taken in several rounds. */
const MAX_BATCH = 500;
/** A message up to this many bytes rides in its NOTIFY (whose payload stops at 8000). */
const INLINE_MAX_BYTES = 7000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const RELAY_SQL =
  triggerFunctionSql(
    'announce_message',
    `declare
  message text;
begin
  -- Authorisation probes carry no event or payload (and are rolled back anyway).
  if new.event is null or new.payload is null or new.private is null then
    return null;
  end if;
  message := json_build_object('id', new.id, 'topic', new.topic, 'event', new.event,
                               'payload', new.payload, 'private', new.private)::text;
  perform pg_notify('${MESSAGES_NOTIFY_CHANNEL}',
                    case when octet_length(message) <= ${INLINE_MAX_BYTES} then message
                         else new.id::text end);
  return null;
end`,
  ) +
  `
create or replace trigger ${TRIGGER_NAME}
  after insert on realtime.messages
  for each row execute function devstack_realtime.announce_message();`;

/** One committed row of realtime.messages, as subscribers receive it. */
export interface DbMessage {
  id: string;
  /** The topic without the `realtime:` prefix. */
  topic: string;
  event: string;
  payload: Json;
  private: boolean;
}

export class MessageRelay {
  /** Resolves once the trigger is in place and the listener runs. */
  readonly ready: Promise<void>;
  /**
   * Messages taken from the database for delivery (in their NOTIFY, or read back): one per
   * message, whoever listens.
   */
  messagesRead = 0;
  /** Each announcement in order: a message that came whole, or the id of one to read. */
  private readonly queue = new BatchQueue<DbMessage | string>(
    MAX_BATCH,
    (ids) => this.relay(ids),
    'broadcasting database messages',
  );
  private cleaning: Promise<void> | undefined;
  private cleanAgain = false;
  private cleanupTimer: unknown;
  private unlisten: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private readonly db: SqlEngine,
    private readonly clock: DevstackClock,
    /** May return a promise (a membership change's re-check), awaited before the next. */
    private readonly deliver: (message: DbMessage) => void | Promise<void>,
  ) {
    this.ready = this.start();
  }

  private async start(): Promise<void> {
    this.unlisten = await this.db.listen(MESSAGES_NOTIFY_CHANNEL, (id) => this.onNotify(id));
    await execRacingDdl(this.db, RELAY_SQL);
    this.requestCleanup();
    this.armCleanup();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clock.clearTimeout(this.cleanupTimer);
    await this.ready.catch(() => undefined);
    await this.queue.close();
    await this.cleaning;
    await this.unlisten?.();
    this.unlisten = undefined;
  }

  private armCleanup(): void {
    if (this.closed) return;
    this.cleanupTimer = this.clock.setTimeout(() => {
      this.requestCleanup();
      this.armCleanup();
    }, CLEANUP_EVERY_MS);
  }

  /** Deletes expired messages; a request while one runs makes it run once more. */
  requestCleanup(): void {
    if (this.closed) return;
    if (this.cleaning) {
      this.cleanAgain = true;
      return;
    }
    this.cleaning = this.cleanUp()
      .catch((error: unknown) => console.warn('[realtime] deleting old messages failed:', error))
      .finally(() => {
        this.cleaning = undefined;
      });
  }

  private async cleanUp(): Promise<void> {
    do {
      this.cleanAgain = false;
      const cutoff = new Date(this.clock.now() - MESSAGE_RETENTION_MS).toISOString();
      // inserted_at is a timestamp without time zone from now(): compare in the session's zone.
      await this.db.query(
        `delete from realtime.messages where inserted_at < $1::timestamptz::timestamp`,
        [cutoff],
      );
    } while (this.cleanAgain && !this.closed);
  }

  private onNotify(announced: string): void {
    if (this.closed) return;
    if (UUID.test(announced)) this.queue.push(announced);
    else {
      const message = inlineMessage(announced);
      if (message) this.queue.push(message);
    }
  }

  /** Delivers a batch of announcements in order, reading the ids among them in one query. */
  private async relay(batch: (DbMessage | string)[]): Promise<void> {
    const ids = batch.filter((item) => typeof item === 'string');
    const read = ids.length > 0 ? await this.read(ids) : new Map<string, DbMessage>();
    for (const item of batch) {
      const message = typeof item === 'string' ? read.get(item.toLowerCase()) : item;
      if (!message || this.closed) continue;
      this.messagesRead += 1;
      await this.deliver(message);
    }
  }

  private async read(ids: string[]): Promise<Map<string, DbMessage>> {
    const { rows } = await this.db.query<{
      id: string;
      topic: string;
      event: string;
      payload: string;
      private: boolean | null;
    }>(
      `select id::text as id, topic, event, payload::text as payload, private
       from realtime.messages
       where id = any($1::uuid[])
         and event is not null and payload is not null and private is not null`,
      [`{${ids.join(',')}}`],
    );
    const read = new Map<string, DbMessage>();
    for (const row of rows) {
      // Re-serialising recurses per level: absurdly nested payloads are not relayed.
      if (jsonNestsDeeperThan(row.payload)) continue;
      read.set(row.id, {
        id: row.id,
        topic: row.topic,
        event: row.event,
        payload: JSON.parse(row.payload) as Json,
        private: row.private === true,
      });
    }
    return read;
  }
}

/** A message the trigger sent whole in its NOTIFY, or undefined if it is not one. */
function inlineMessage(text: string): DbMessage | undefined {
  // The wrapper is one level more than the payload.
  const parsed = parseJsonText(text, MAX_JSON_DEPTH + 1);
  if (!parsed.ok || !isPlainObject(parsed.value)) return undefined;
  const { id, topic, event, payload, private: isPrivate } = parsed.value;
  if (typeof id !== 'string' || !UUID.test(id)) return undefined;
  if (typeof topic !== 'string' || typeof event !== 'string') return undefined;
  if (payload === undefined || payload === null || typeof isPrivate !== 'boolean') return undefined;
  return { id, topic, event, payload: payload as Json, private: isPrivate };
}
