// The install card's state: Chromium's `beforeinstallprompt` captured as early as possible
// (main.tsx calls listenForInstallPrompt before React renders), whether the app already runs
// installed, iOS (no prompt: Share → Add to Home Screen), and a remembered dismissal.
import { create } from 'zustand';

/** localStorage flag: the user dismissed the install card. */
export const INSTALL_DISMISSED_KEY = 'outpost:install-dismissed';
/** localStorage flag: the user has created something (the card waits for it). */
export const CREATED_SOMETHING_KEY = 'outpost:created-something';

/** Chromium's event (not in the DOM lib). */
export interface BeforeInstallPromptEvent extends Event {
  prompt(): Promise<void>;
  readonly userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

interface InstallState {
  /** The captured prompt, until used. */
  deferred: BeforeInstallPromptEvent | null;
  /** Running from the home screen / as an installed app. */
  standalone: boolean;
  /** iOS Safari: installable only by hand. */
  ios: boolean;
  dismissed: boolean;
  /** The user has made a list or a task: now installing is worth suggesting. */
  createdSomething: boolean;
  markCreated: () => void;
  /** Shows the browser's install dialog; true when the user accepted. */
  install: () => Promise<boolean>;
  dismiss: () => void;
}

function detectStandalone(): boolean {
  if (typeof window === 'undefined') return false;
  const iosStandalone = (navigator as Navigator & { standalone?: boolean }).standalone === true;
  return iosStandalone || window.matchMedia('(display-mode: standalone)').matches;
}

function detectIos(): boolean {
  if (typeof navigator === 'undefined') return false;
  // iPadOS reports itself as a Mac with touch.
  return (
    /iPad|iPhone|iPod/.test(navigator.userAgent) ||
    (navigator.userAgent.includes('Macintosh') && navigator.maxTouchPoints > 1)
  );
}

function readFlag(key: string): boolean {
  return typeof localStorage !== 'undefined' && localStorage.getItem(key) === '1';
}

export const useInstallPrompt = create<InstallState>((set, get) => ({
  deferred: null,
  standalone: detectStandalone(),
  ios: detectIos(),
  dismissed: readFlag(INSTALL_DISMISSED_KEY),
  createdSomething: readFlag(CREATED_SOMETHING_KEY),
  markCreated() {
    if (get().createdSomething) return;
    localStorage.setItem(CREATED_SOMETHING_KEY, '1');
    set({ createdSomething: true });
  },
  async install() {
    const event = get().deferred;
    if (!event) return false;
    await event.prompt();
    const { outcome } = await event.userChoice;
    set({ deferred: null, ...(outcome === 'accepted' ? { standalone: true } : {}) });
    return outcome === 'accepted';
  },
  dismiss() {
    localStorage.setItem(INSTALL_DISMISSED_KEY, '1');
    set({ dismissed: true });
  },
}));

/** Captures the install prompt and notices an install; call once, before the first render. */
export function listenForInstallPrompt(target: Window = window): void {
  target.addEventListener('beforeinstallprompt', (event) => {
    event.preventDefault(); // we offer it in our own card, at a better moment
    useInstallPrompt.setState({ deferred: event as BeforeInstallPromptEvent });
  });
  target.addEventListener('appinstalled', () => {
    useInstallPrompt.setState({ deferred: null, standalone: true });
  });
}
