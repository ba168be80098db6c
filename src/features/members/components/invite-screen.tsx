// /invite/:token — accepting an invite link (product.md §2, §8). It needs an account and a
// connection; accepting is an explicit click. After the server has made the membership, the
// screen waits for the list to reach this device (a pull) and then opens it.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useId, useState } from 'react';

import { Button } from '@/components/ui/button';
import { ProductPicture } from '@/components/ui/product-picture';
import { useOnline } from '@/hooks/use-online';
import { acceptInvite, type ApiFailure } from '@/lib/api';
import { errorMessage } from '@/lib/error-messages';
import { Link, useNavigate, useParams } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

import '../members.css';

/** After this long without the list arriving, say so and offer the lists (ms). */
const SLOW_JOIN_MS = 10_000;

export const ACCEPT_NEEDS_CONNECTION = 'Accepting an invite needs a connection.';

type State =
  | { step: 'idle' }
  | { step: 'accepting' }
  | { step: 'joining'; listId: string }
  | { step: 'failed'; failure: ApiFailure };

/** Codes after which the same token can never work: no button to try again, and the
 * heading says what became of the invite. */
const FINAL_HEADINGS: Readonly<Record<string, string>> = {
  INVITE_INVALID: "This invite link isn't valid",
  INVITE_EXPIRED: 'This invite link has expired',
  INVITE_USED: 'This invite link has been used',
  ALREADY_MEMBER: "You're already on this list",
};

export const INVITE_HEADING = "You're invited to a list";

function failureText(failure: ApiFailure): string {
  switch (failure.code) {
    case 'OFFLINE':
      return ACCEPT_NEEDS_CONNECTION;
    case 'AUTH_EXPIRED':
      return 'Sign in again to accept this invite.';
    case 'INVITE_INVALID':
    case 'INVITE_EXPIRED':
    case 'INVITE_USED':
    case 'ALREADY_MEMBER':
      return errorMessage(failure.code);
    case 'VALIDATION_FAILED':
      return "This list can't take more members right now. Ask its owner.";
    default:
      return "Couldn't accept the invite just now. Try again in a moment.";
  }
}

function SignedOut({ next }: { next: string }) {
  const encoded = encodeURIComponent(next);
  return (
    <>
      <ProductPicture />
      <p>
        Someone shared a list with you on Outpost. Sign in or create an account to join it; the list
        is then kept on your device, so you can work on it offline too.
      </p>
      <p className="invite__actions invite__actions--stacked">
        <Link to={`/sign-in?next=${encoded}`} className="btn btn--primary">
          Sign in
        </Link>
        <Link to={`/sign-up?next=${encoded}`} className="btn btn--secondary">
          Create an account
        </Link>
      </p>
    </>
  );
}

export function InviteScreen() {
  const { token = '' } = useParams();
  const { supabase, sync } = useServices();
  const session = useSession();
  const online = useOnline();
  const navigate = useNavigate();
  const [state, setState] = useState<State>({ step: 'idle' });
  const [slow, setSlow] = useState(false);
  const offlineId = useId();
  const joiningId = state.step === 'joining' ? state.listId : null;

  const arrived = useLiveQuery(
    async () => (joiningId ? sync.queries.hasList(joiningId) : false),
    [sync, joiningId],
  );

  useEffect(() => {
    if (joiningId && arrived) void navigate(`/lists/${joiningId}`, { replace: true });
  }, [joiningId, arrived, navigate]);

  useEffect(() => {
    if (!joiningId) return;
    const timer = setTimeout(() => setSlow(true), SLOW_JOIN_MS);
    return () => clearTimeout(timer);
  }, [joiningId]);

  async function accept() {
    setState({ step: 'accepting' });
    const result = await acceptInvite(supabase, token);
    if (!result.ok) {
      setState({ step: 'failed', failure: result });
      return;
    }
    setState({ step: 'joining', listId: result.listId });
    sync.engine.requestSync();
  }

  const failure = state.step === 'failed' ? state.failure : null;
  const finalHeading = failure ? FINAL_HEADINGS[failure.code] : undefined;
  const final = finalHeading !== undefined;
  // The same element throughout (the layout focuses it), its text following the outcome.
  const heading = <h1>{finalHeading ?? INVITE_HEADING}</h1>;
  if (!session.ready) return <section className="screen screen--narrow invite">{heading}</section>;
  if (session.mode !== 'signed-in') {
    return (
      <section className="screen screen--narrow invite">
        {heading}
        <SignedOut next={`/invite/${token}`} />
      </section>
    );
  }

  const showButton = state.step === 'idle' || state.step === 'accepting' || (failure && !final);

  return (
    <section className="screen screen--narrow invite">
      {heading}
      {state.step !== 'joining' && !final ? (
        <>
          <ProductPicture />
          <p>
            Accept to join the list. It will be kept on this device too, so you can work on it
            offline, and your edits reach everyone on it.
          </p>
        </>
      ) : null}
      {showButton ? (
        <>
          <p className="invite__actions">
            <Button
              variant="primary"
              disabled={!online || state.step === 'accepting'}
              aria-describedby={online ? undefined : offlineId}
              onClick={() => void accept()}
            >
              {state.step === 'accepting' ? 'Accepting…' : 'Accept invite'}
            </Button>
          </p>
          {online ? null : (
            <p id={offlineId} className="members__hint">
              {ACCEPT_NEEDS_CONNECTION}
            </p>
          )}
        </>
      ) : null}
      {/* Present from the start so screen readers hear what appears in it. */}
      <div aria-live="polite" className="invite__status">
        {state.step === 'joining' ? (
          <>
            <p>Joining the list…</p>
            {slow ? (
              <p>
                This is taking a while. The list will appear in <Link to="/lists">your lists</Link>{' '}
                once it has reached this device.
              </p>
            ) : null}
          </>
        ) : null}
        {failure ? (
          <>
            <p className={final ? undefined : 'form-error'}>{failureText(failure)}</p>
            {failure.code === 'ALREADY_MEMBER' && failure.listId ? (
              <p>
                <Link to={`/lists/${failure.listId}`} className="btn btn--primary">
                  Open the list
                </Link>
              </p>
            ) : failure.code === 'AUTH_EXPIRED' ? (
              <p>
                <Link
                  to={`/sign-in?next=${encodeURIComponent(`/invite/${token}`)}`}
                  className="btn btn--primary"
                >
                  Sign in
                </Link>
              </p>
            ) : final ? (
              <p>
                <Link to="/lists" className="btn btn--primary">
                  Go to your lists
                </Link>
              </p>
            ) : null}
          </>
        ) : null}
      </div>
    </section>
  );
}
