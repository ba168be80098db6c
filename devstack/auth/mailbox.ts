// Every mail the devstack's auth sends, kept in memory instead of delivered, as the Supabase
// CLI hands its mails to a local Mailpit: the mail viewer (mail-viewer.ts) lists them for
// people and tests. One mailbox per running devstack, found through its context.
import type { DevstackContext } from '../context';

export interface MailAddress {
  readonly Name: string;
  readonly Address: string;
}

export interface StoredMail {
  /** Mailpit's message id (here a counter, as text). */
  readonly id: string;
  readonly from: MailAddress;
  readonly to: readonly MailAddress[];
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  /** The links of the mail's HTML, in order (the viewer shows them clickable). */
  readonly links: readonly string[];
  /** The devstack clock's time of sending (ms). */
  readonly createdMs: number;
  /** Which GoTrue template made it: signup, recovery, magiclink, email_change, invite. */
  readonly kind: string;
  read: boolean;
}

/** Mails kept before the oldest are dropped (a devstack left running for weeks stays small). */
const MAX_KEPT = 500;
/** The sender GoTrue's mails name (the CLI's `admin@email.com` default). */
export const MAIL_SENDER: MailAddress = { Name: 'Admin', Address: 'admin@email.com' };

export class Mailbox {
  private readonly mails: StoredMail[] = [];
  private next = 1;

  constructor(private readonly now: () => number) {}

  deliver(mail: Omit<StoredMail, 'id' | 'createdMs' | 'read' | 'from'>): StoredMail {
    const stored: StoredMail = {
      ...mail,
      id: String(this.next),
      from: MAIL_SENDER,
      createdMs: this.now(),
      read: false,
    };
    this.next += 1;
    this.mails.push(stored);
    if (this.mails.length > MAX_KEPT) this.mails.splice(0, this.mails.length - MAX_KEPT);
    return stored;
  }

  /** Newest first, as Mailpit lists them. */
  list(): readonly StoredMail[] {
    return [...this.mails].reverse();
  }

  get(id: string): StoredMail | undefined {
    return this.mails.find((mail) => mail.id === id);
  }

  clear(): void {
    this.mails.length = 0;
  }

  delete(ids: readonly string[]): void {
    const gone = new Set(ids);
    const kept = this.mails.filter((mail) => !gone.has(mail.id));
    this.mails.length = 0;
    this.mails.push(...kept);
  }
}

const MAILBOXES = new WeakMap<DevstackContext, Mailbox>();

/** The mailbox of a running devstack (made on first use). */
export function mailboxFor(ctx: DevstackContext): Mailbox {
  let mailbox = MAILBOXES.get(ctx);
  if (!mailbox) {
    mailbox = new Mailbox(() => ctx.clock.now());
    MAILBOXES.set(ctx, mailbox);
  }
  return mailbox;
}
