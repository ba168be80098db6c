// /welcome — first run on a device: sign in, create an account, or just start (local-only).
// Anyone who already made that choice goes straight on to where they were headed.
import { Link, Redirect, useNavigate } from '@/lib/router';

import { Button } from '@/components/ui/button';
import { ProductPicture } from '@/components/ui/product-picture';
import { useSession } from '@/lib/session';

import '../account.css';
import { useNextPath } from '../hooks/use-next-path';

export function WelcomeScreen() {
  const session = useSession();
  const navigate = useNavigate();
  const { next, query } = useNextPath();

  if (!session.ready) return null; // a few ms while the device database opens
  if (session.mode !== 'none') return <Redirect to={next} replace />;

  return (
    <Welcome
      query={query}
      onUseWithoutAccount={() => {
        session.setLocalOnly(true);
        void navigate(next, { replace: true });
      }}
    />
  );
}

/**
 * The welcome screen as it shows. The build also renders it (src/app/first-visit-page.tsx)
 * into index.html, which paints it on a browser's very first visit before the app has loaded.
 * `query`: the `?next=…` its links carry ('' for none).
 */
export function Welcome({
  query,
  onUseWithoutAccount,
}: {
  query: string;
  onUseWithoutAccount?: () => void;
}) {
  return (
    <section className="screen screen--narrow account account--welcome">
      <img className="account-welcome__icon" src="/icon.svg" alt="" width={56} height={56} />
      <h1>Welcome to Outpost</h1>
      <ProductPicture />
      <ul className="product-points">
        <li>
          <strong>Works with no signal</strong>
          <span>Your lists are kept on this device, and every change is saved at once.</span>
        </li>
        <li>
          <strong>Syncs by itself</strong>
          <span>Back online, changes go both ways without you doing a thing.</span>
        </li>
        <li>
          <strong>Made for teams</strong>
          <span>Share a list by link and see each other&apos;s edits as they happen.</span>
        </li>
      </ul>
      <div className="account-actions">
        <Link className="btn btn--primary" to={`/sign-in${query}`}>
          Sign in
        </Link>
        <Link className="btn btn--secondary" to={`/sign-up${query}`}>
          Create an account
        </Link>
        <Button variant="ghost" onClick={onUseWithoutAccount}>
          Use without an account
        </Button>
      </div>
      <p className="account-hint">
        Without an account, your lists stay on this device. Create an account later to upload them.
      </p>
    </section>
  );
}
