// Devstack clients for the settings feature's component tests (on the harness's helpers).
import { devstackClient, signInDemo, signUpFresh } from '@/testing/app-harness';

export { SEEDED_LIST } from '@/testing/app-harness';

/** The app's client, signed in as a seeded demo user. */
export function signedInClient(who: 'alice' | 'bob') {
  return signInDemo(devstackClient(), who);
}

/** The app's client for a new account (the devstack confirms at once), signed in. */
export async function signedUpClient(displayName: string) {
  const supabase = devstackClient();
  await signUpFresh(supabase, displayName);
  return supabase;
}
