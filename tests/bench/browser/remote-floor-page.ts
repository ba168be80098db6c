// The floor page of the app bench's remote edits (issue 42), bundled with esbuild and served
// beside the app's build: supabase-js alone, signed in as a member, subscribed to a list's
// private topic as the app's realtime joins it (sync/remote.ts), writing the title of each row
// message it receives into the page. No store, no validation, no React: what the browser and
// the transport take to show an edit, for the app's figure to be compared with.
import { createClient, REALTIME_SUBSCRIBE_STATES } from '@supabase/supabase-js';

export interface RemoteFloorOptions {
  url: string;
  publishableKey: string;
  email: string;
  password: string;
  /** The list's topic, `list:<id>:<realtime_epoch>`. */
  topic: string;
}

/** Signs in, joins the topic and resolves once subscribed; each row's title then shows. */
async function subscribe(options: RemoteFloorOptions): Promise<void> {
  const shown = document.getElementById('title');
  if (!shown) throw new Error('floor page: no #title');
  const supabase = createClient(options.url, options.publishableKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  const { error } = await supabase.auth.signInWithPassword({
    email: options.email,
    password: options.password,
  });
  if (error) throw error;
  // A private channel's join carries the user's token, not the publishable key.
  await supabase.realtime.setAuth();
  await new Promise<void>((resolve, reject) => {
    supabase
      .channel(options.topic, { config: { private: true } })
      .on('broadcast', { event: 'row' }, (message: { payload?: unknown }) => {
        const row = (message.payload as { row?: { title?: unknown } } | undefined)?.row;
        if (typeof row?.title === 'string') shown.textContent = row.title;
      })
      .subscribe((state, joinError) => {
        if (state === REALTIME_SUBSCRIBE_STATES.SUBSCRIBED) resolve();
        else if (state !== REALTIME_SUBSCRIBE_STATES.CLOSED) {
          reject(joinError ?? new Error(`floor page: the join ended ${state}`));
        }
      });
  });
}

(window as unknown as { __remoteFloor: typeof subscribe }).__remoteFloor = subscribe;
