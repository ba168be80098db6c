// Authorisation that holds after the join (issue 35): when the database broadcasts a change of
// a `memberships` row, the channels joined to that list's topics are authorised again, and
// those no longer allowed are shut down (their presence dropped with them).
//
// Hosted Realtime does not do this: it checks a private channel's read permission at join and
// again only when the client sends a new access token (or the token expires). The devstack is
// stricter on purpose (it must never be laxer than hosted, and may be stricter): Outpost's app
// sends a fresh token to Realtime when a membership of its user changes, so on hosted a
// removed member's channels close at that refresh; here they close as soon as the change is
// committed, whether or not the client cooperates, and a client that does not refresh (an
// attacker's) gets no window at all. Only sessions on topics of that one list are asked, so a
// membership change costs one probe per channel of that list and nothing elsewhere.
import { isPlainObject } from '../json';
import type { Json } from './protocol';

/** The table whose row changes re-authorise a list's channels. */
const MEMBERSHIPS_TABLE = 'memberships';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A membership change as a database message names it. */
export interface MembershipChange {
  list: string;
  /** The row's id, version and transaction: the same change sent to several topics. */
  change: string;
}

/**
 * The membership change a database message carries, or undefined for any other message: the
 * deltas' contract (…_realtime_deltas.sql) sends `{table: 'memberships', row: {id, list_id,
 * version}, xid}` to the list's topic and to the member's own.
 */
export function membershipChangeOf(payload: Json): MembershipChange | undefined {
  if (!isPlainObject(payload)) return undefined;
  if (payload.table !== MEMBERSHIPS_TABLE) return undefined;
  const row = payload.row;
  if (!isPlainObject(row)) return undefined;
  const list = row.list_id;
  if (typeof list !== 'string' || !UUID.test(list)) return undefined;
  return {
    list,
    change: JSON.stringify([row.id ?? null, row.version ?? null, payload.xid ?? null]),
  };
}

/** The prefix every topic of `list` starts with: data `list:<id>:<epoch>`, presence `…:presence`. */
export function listTopicPrefix(list: string): string {
  return `list:${list}:`;
}

/**
 * Re-checks of one list run one at a time; a request while one runs asks for one more after
 * it (the change may have committed after the running one read the memberships), and
 * requests while that one waits share it. So a burst of changes costs at most two rounds,
 * and the same change heard again (its list's topic, then the member's) costs none.
 */
export class ListRechecks {
  private readonly running = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Promise<void>>();
  /** Per list, the change last asked for and the re-check that covers it. */
  private readonly last = new Map<string, { change: string; done: Promise<void> }>();

  constructor(private readonly recheck: (list: string) => Promise<void>) {}

  /** Resolves once a re-check that started after the change committed has finished. */
  request({ list, change }: MembershipChange): Promise<void> {
    const last = this.last.get(list);
    if (last?.change === change) return last.done;
    const done = this.schedule(list);
    this.last.set(list, { change, done });
    return done;
  }

  private schedule(list: string): Promise<void> {
    const waiting = this.queued.get(list);
    if (waiting) return waiting;
    const current = this.running.get(list);
    const next = (current ?? Promise.resolve()).then(() => {
      this.queued.delete(list);
      const run = this.recheck(list).catch((error: unknown) => {
        console.warn(`[realtime] re-checking the channels of list ${list} failed:`, error);
      });
      this.running.set(list, run);
      return run.finally(() => {
        if (this.running.get(list) === run) this.running.delete(list);
      });
    });
    this.queued.set(list, next);
    return next;
  }
}
