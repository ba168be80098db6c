// Persistent storage (web.dev/persistent-storage): asked once, after the first real save
// rather than at load, so the browser sees a user who cares about their data; never asked
// again right after a refusal. Settings shows the answer and the space used.

/** localStorage flag: persistence has been asked for on this device. */
export const PERSIST_ASKED_KEY = 'outpost:persist-asked';

type StorageManagerLike = Pick<StorageManager, 'persist' | 'persisted' | 'estimate'>;

function storageManager(): StorageManagerLike | undefined {
  return typeof navigator !== 'undefined' && 'storage' in navigator ? navigator.storage : undefined;
}

/** Asks for persistent storage once per device; later calls do nothing. */
export function requestPersistenceAfterFirstSave(storage = storageManager()): void {
  if (!storage?.persist || localStorage.getItem(PERSIST_ASKED_KEY)) return;
  localStorage.setItem(PERSIST_ASKED_KEY, '1');
  storage.persist().catch(() => undefined);
}

/** Asks for persistent storage now (Settings' "Keep data on this device"). */
export async function requestPersistence(storage = storageManager()): Promise<boolean> {
  localStorage.setItem(PERSIST_ASKED_KEY, '1');
  return (await storage?.persist?.().catch(() => false)) ?? false;
}

export interface StorageInfo {
  /** Whether the browser promised not to evict this site's data. */
  persisted: boolean;
  /** Bytes used by this site, when the browser says. */
  usage: number | null;
  /** Bytes this site may use, when the browser says. */
  quota: number | null;
}

export async function storageInfo(storage = storageManager()): Promise<StorageInfo> {
  const [persisted, estimate] = await Promise.all([
    storage?.persisted?.().catch(() => false) ?? Promise.resolve(false),
    storage?.estimate?.().catch(() => undefined) ?? Promise.resolve(undefined),
  ]);
  return {
    persisted: Boolean(persisted),
    usage: estimate?.usage ?? null,
    quota: estimate?.quota ?? null,
  };
}
