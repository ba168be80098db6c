// The three screens of the email flows as one lazily loaded chunk, picked by path: each
// dynamic import costs the app shell a line of the chunk graph, and these screens are rare
// (routes.tsx maps /forgot-password, /reset-password and /email-confirmed here).
import { useLocation } from '@/lib/router';

import { EmailLinkScreen } from './email-link-screen';
import { ForgotPasswordScreen } from './forgot-password-screen';
import { ResetPasswordScreen } from './reset-password-screen';

export function EmailFlowRoute() {
  const { pathname } = useLocation();
  if (pathname.startsWith('/forgot-password')) return <ForgotPasswordScreen />;
  if (pathname.startsWith('/reset-password')) return <ResetPasswordScreen />;
  return <EmailLinkScreen />;
}
