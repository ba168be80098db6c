// The app: its services (one supabase client, one sync library), the session, the router.
import { useState } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router';

import { ServicesProvider, type AppServices } from '@/lib/services';
import { SessionProvider } from '@/lib/session';

import './app.css';
import { routes } from './routes';

export function App({ services }: { services: AppServices }) {
  const [router] = useState(() => createBrowserRouter(routes));
  return (
    <ServicesProvider services={services}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </ServicesProvider>
  );
}
