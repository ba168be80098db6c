// The app: its services (one supabase client, one sync library), the session, the routes (on
// the browser's location).
import { ServicesProvider, type AppServices } from '@/lib/services';
import { SessionProvider } from '@/lib/session';

import './app.css';
import { AppRoutes } from './routes';

export function App({ services }: { services: AppServices }) {
  return (
    <ServicesProvider services={services}>
      <SessionProvider>
        <AppRoutes />
      </SessionProvider>
    </ServicesProvider>
  );
}
