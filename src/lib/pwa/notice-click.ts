// A notification's click (src/sw.ts): its task opens in a window of the app already open (the
// one in front, else any), asked by message to navigate within the app (nothing reloads, no
// draft is lost: service-worker-updates.ts listens); with no window open, in a new one. The
// task's path comes from the notice (notices.ts) and is checked to be one of the app's own.

/** The message a window gets: open this path of the app. */
export const OPEN_PATH_MESSAGE = 'OPEN_PATH';

/** The parts of a window client used here. */
interface WindowLike {
  readonly url: string;
  readonly focused: boolean;
  readonly visibilityState: string;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}

/** The parts of the worker's `clients` used here. */
export interface NoticeClients {
  matchAll(options: {
    type: 'window';
    includeUncontrolled: boolean;
  }): Promise<readonly WindowLike[]>;
  openWindow(url: string): Promise<unknown>;
}

/** The app path a notification's data names, or the lists when it names none of ours. */
export function noticePath(data: unknown, origin: string): string {
  const url = (data as { url?: unknown } | null)?.url;
  if (typeof url !== 'string' || !url.startsWith('/') || url.startsWith('//')) return '/lists';
  const resolved = new URL(url, origin);
  return resolved.origin === origin ? `${resolved.pathname}${resolved.search}` : '/lists';
}

/** Opens the notice's task in the app's window in front (or any), else in a new window. */
export async function openNotice(
  data: unknown,
  clients: NoticeClients,
  origin: string,
): Promise<void> {
  const path = noticePath(data, origin);
  const windows = (await clients.matchAll({ type: 'window', includeUncontrolled: true })).filter(
    (client) => new URL(client.url).origin === origin,
  );
  const target =
    windows.find((client) => client.focused) ??
    windows.find((client) => client.visibilityState === 'visible') ??
    windows[0];
  if (!target) {
    await clients.openWindow(path);
    return;
  }
  target.postMessage({ type: OPEN_PATH_MESSAGE, path });
  // Focusing needs the click's user activation; without it (a test's event) the message is
  // still delivered.
  await target.focus().catch(() => undefined);
}
