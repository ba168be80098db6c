// /welcome — first run on a device: sign in, create an account, or just start (local-only).
// Anyone who already made that choice goes straight on to where they were headed.
import { Link, Navigate, useNavigate } from 'react-router';

import { Button } from '@/components/ui/button';
import { useSession } from '@/lib/session';

import '../account.css';
import { useNextPath } from '../hooks/use-next-path';

export function WelcomeScreen() {
  const session = useSession();
  const navigate = useNavigate();
  const { next, query } = useNextPath();

  if (!session.ready) return null; // a few ms while the device database opens
  if (session.mode !== 'none') return <Navigate to={next} replace />;

  return (
    <section className="screen screen--narrow account account--welcome">
      <img className="account-welcome__icon" src="/icon.svg" alt="" width={56} height={56} />
      <h1>Welcome to Outpost</h1>
      <p className="account-lead">
        Task lists that work with no signal: everything is kept on this device and every change is
        saved at once.
      </p>
      <p className="account-lead">
        Share a list with your team and it syncs with everyone whenever you&apos;re online.
      </p>
      <div className="account-actions">
        <Link className="btn btn--primary" to={`/sign-in${query}`}>
          Sign in
        </Link>
        <Link className="btn btn--secondary" to={`/sign-up${query}`}>
          Create an account
        </Link>
        <Button
          variant="ghost"
          onClick={() => {
            session.setLocalOnly(true);
            void navigate(next, { replace: true });
          }}
        >
          Use without an account
        </Button>
      </div>
      <p className="account-hint">
        Without an account, your lists stay on this device. Create an account later to upload them.
      </p>
    </section>
  );
}
