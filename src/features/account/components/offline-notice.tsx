// What the sign-in and sign-up forms say while the device is offline: the account screens are
// the only ones that need the network, and nothing else stops working without it.
import { useNavigate } from '@/lib/router';

import { Button } from '@/components/ui/button';
import { useSession } from '@/lib/session';

export function OfflineNotice({ action, next }: { action: string; next: string }) {
  const session = useSession();
  const navigate = useNavigate();
  return (
    <div className="account-notice" role="status">
      <p>
        {action} needs a connection. You can keep using Outpost offline; your changes are saved on
        this device.
      </p>
      {session.mode === 'none' ? (
        // First run with no signal: the one way in that needs none.
        <Button
          size="sm"
          onClick={() => {
            session.setLocalOnly(true);
            void navigate(next, { replace: true });
          }}
        >
          Use without an account
        </Button>
      ) : null}
    </div>
  );
}
