// Broadcast from the database without logical replication: the devstack (never the
// migrations) puts an AFTER INSERT trigger on realtime.messages that NOTIFYs only the new
// row's id (NOTIFY payloads stop at 8000 bytes). Each announced message is then read once,
// as the admin, and handed to the hub, which fans it out to the topic's subscribers on its
// cached join-time permissions: no per-subscriber database work. Rows older than 3 days are
// deleted on the devstack's clock, as hosted drops its daily partitions.
import type { DevstackClock } from '../clock';
import { jsonNestsDeeperThan } from '../context';
import { execRacingDdl, type SqlEngine } from '../sql-engine';
import { BatchQueue } from './batch-queue';
import type { Json } from './protocol';

export const MESSAGES_NOTIFY_CHANNEL = 'devstack_realtime_messages';
const TRIGGER_NAME = 'devstack_realtime_messages';
/** Hosted drops realtime.messages partitions older than this. */
export const MESSAGE_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;
const CLEANUP_EVERY_MS = 60 * 60 * 1000;
/** Messages read per query; bigger bursts are taken in several rounds. */
const MAX_BATCH = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const RELAY_SQL = `
create schema if not exists devstack_realtime;
comment on schema devstack_realtime is
  'Added by the Outpost devstack (not the migrations): change capture for realtime.';
create or replace function devstack_realtime.announce_message() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $fn$
begin
  -- Authorisation probes carry no event or payload (and are rolled back anyway).
  if new.event is not null and new.payload is not null then
    perform pg_notify('${MESSAGES_NOTIFY_CHANNEL}', new.id::text);
  end if;
  return null;
end
$fn$;
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
  /** Rows read from realtime.messages for delivery: one per message, whoever listens. */
  messagesRead = 0;
  private readonly queue = new BatchQueue<string>(
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
    private readonly deliver: (message: DbMessage) => void,
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

  private onNotify(id: string): void {
    if (this.closed || !UUID.test(id)) return;
    this.queue.push(id);
  }

  private async relay(ids: string[]): Promise<void> {
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
    this.messagesRead += rows.length;
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of ids) {
      const row = byId.get(id.toLowerCase());
      if (!row || this.closed) continue;
      // Re-serialising recurses per level: absurdly nested payloads are not relayed.
      if (jsonNestsDeeperThan(row.payload)) continue;
      this.deliver({
        id: row.id,
        topic: row.topic,
        event: row.event,
        payload: JSON.parse(row.payload) as Json,
        private: row.private === true,
      });
    }
  }
}
