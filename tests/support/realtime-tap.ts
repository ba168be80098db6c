// A tap on a device's realtime topics (through DeviceOptions.wrapRemote): which topics are
// joined, each (re)join, every row message that reached the engine's edge, and message
// faults between the edge and the engine — drop, duplicate, hold back (then release in
// any order, so a message can come after the pull that already brought its row).
import type { Remote, RowMessage, TopicListener } from '../../sync/remote';

/** What the tap does with a well-formed message before the engine sees it. */
export type MessageFault = 'deliver' | 'drop' | 'duplicate' | 'hold';

/** A message held back, with the engine's listener it was meant for. */
interface Held {
  topic: string;
  message: RowMessage;
  listener: TopicListener;
}

export class RealtimeTap {
  /** Topics joined now (SUBSCRIBED and not left). */
  readonly joined = new Set<string>();
  /** (Re)joins seen, per topic. */
  readonly joins = new Map<string, number>();
  /** Row messages that reached the edge, in order (before any fault). */
  readonly received: { topic: string; message: RowMessage }[] = [];
  /** Messages held back until release(). */
  readonly held: Held[] = [];
  /** Decides each message's fate (default: delivered). */
  fault: (message: RowMessage, topic: string) => MessageFault = () => 'deliver';
  private real: Remote | undefined;

  /** DeviceOptions.wrapRemote. */
  readonly wrap = (real: Remote): Remote => {
    this.real = real;
    return {
      ...real,
      subscribeTopic: (topic, listener) => {
        const leave = real.subscribeTopic(topic, {
          onSubscribed: () => {
            this.joined.add(topic);
            this.joins.set(topic, (this.joins.get(topic) ?? 0) + 1);
            listener.onSubscribed();
          },
          onLost: () => {
            this.joined.delete(topic);
            listener.onLost();
          },
          onRow: (message) => {
            this.received.push({ topic, message });
            const fate = this.fault(message, topic);
            if (fate === 'hold') this.held.push({ topic, message, listener });
            if (fate === 'deliver' || fate === 'duplicate') listener.onRow(message);
            if (fate === 'duplicate') listener.onRow(message);
          },
        });
        return () => {
          this.joined.delete(topic);
          leave();
        };
      },
    };
  };

  /** The topic of `listId` joined now (`list:<id>:<epoch>`), if any. */
  listTopic(listId: string): string | undefined {
    return [...this.joined].find((topic) => topic.startsWith(`list:${listId}:`));
  }

  /** Messages the edge dropped as malformed. */
  malformed(): number {
    return this.real?.malformed?.() ?? 0;
  }

  /** Row messages received for `table`'s row `id`. */
  rowsFor(table: string, id: string): RowMessage[] {
    return this.received.map((r) => r.message).filter((m) => m.table === table && m.row.id === id);
  }

  /** Delivers the held messages (in `order`), as many times as `times` says. */
  release(order: 'fifo' | 'reverse' = 'fifo', times = 1): number {
    const held = this.held.splice(0);
    if (order === 'reverse') held.reverse();
    for (let i = 0; i < times; i++) {
      for (const { message, listener } of held) listener.onRow(message);
    }
    return held.length;
  }
}
