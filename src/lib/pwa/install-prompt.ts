// The install card's state: Chromium's `beforeinstallprompt` captured as early as possible
// (main.tsx calls listenForInstallPrompt before React renders), whether the app runs
// installed right now (followed as the display mode changes), iOS (no prompt: Share → Add to
// Home Screen), and a remembered dismissal (the card's "Not now" or the browser's own dialog
// declined).
import { create } from 'zustand';

/** localStorage flag: the user dismissed the install card. */
export const INSTALL_DISMISSED_KEY = 'outpost:install-dismissed';
/** localStorage flag: the user has created something (the card waits for it). */
export const CREATED_SOMETHING_KEY = 'outpost:created-something';
/** Matches while the app runs as an installed app (not in a browser tab). */
export const STANDALONE_QUERY = '(display-mode: standalone)';

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
  /** Shows the browser's install dialog; true when the user accepted, remembered as a dismissal when not. */
  install: () => Promise<boolean>;
  dismiss: () => void;
}

/** iOS Safari's own flag for a page opened from the home screen. */
function iosStandalone(): boolean {
  return (
    typeof navigator !== 'undefined' &&
    (navigator as Navigator & { standalone?: boolean }).standalone === true
  );
}

function detectStandalone(): boolean {
  if (typeof window === 'undefined') return false;
  return iosStandalone() || window.matchMedia(STANDALONE_QUERY).matches;
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
    if (outcome === 'accepted') {
      set({ deferred: null, standalone: true });
      return true;
    }
    // Declining in the browser's dialog is a "no" as clear as the card's "Not now".
    get().dismiss();
    set({ deferred: null });
    return false;
  },
  dismiss() {
    localStorage.setItem(INSTALL_DISMISSED_KEY, '1');
    set({ dismissed: true });
  },
}));

/**
 * Captures the install prompt, notices an install and follows the display mode (the app
 * opened in a tab after being installed, or the other way round); call once, before the
 * first render. Tests pass their own event target and media query.
 */
export function listenForInstallPrompt({
  target = window,
  standaloneQuery = window.matchMedia(STANDALONE_QUERY),
}: {
  target?: Pick<Window, 'addEventListener'>;
  standaloneQuery?: Pick<MediaQueryList, 'matches' | 'addEventListener'>;
} = {}): void {
  target.addEventListener('beforeinstallprompt', (event) => {
    event.preventDefault(); // we offer it in our own card, at a better moment
    useInstallPrompt.setState({ deferred: event as BeforeInstallPromptEvent });
  });
  target.addEventListener('appinstalled', () => {
    useInstallPrompt.setState({ deferred: null, standalone: true });
  });
  standaloneQuery.addEventListener('change', (event) => {
    useInstallPrompt.setState({ standalone: event.matches || iosStandalone() });
  });
}
