// The routes of SPEC §2. Screens are loaded on first use (each its own chunk, all
// precached by the service worker, so they open offline); the frame and the session gate
// are in the main bundle. Features never import each other: screens made of several
// features are put together here (src/app/routes/).
import { Navigate, type RouteObject } from 'react-router';

import { AppLayout } from './layout';
import { NotFound } from './not-found';
import { RequireSession } from './require-session';
import { RouteError } from './route-error';

export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <Navigate to="/lists" replace /> },
      {
        path: 'welcome',
        lazy: async () => ({
          Component: (await import('@/features/account/components/welcome-screen')).WelcomeScreen,
        }),
      },
      {
        path: 'sign-in',
        lazy: async () => ({
          Component: (await import('@/features/account/components/sign-in-screen')).SignInScreen,
        }),
      },
      {
        path: 'sign-up',
        lazy: async () => ({
          Component: (await import('@/features/account/components/sign-up-screen')).SignUpScreen,
        }),
      },
      {
        path: 'invite/:token',
        lazy: async () => ({
          Component: (await import('@/features/members/components/invite-screen')).InviteScreen,
        }),
      },
      {
        element: <RequireSession />,
        children: [
          {
            path: 'lists',
            lazy: async () => ({
              Component: (await import('@/features/lists/components/lists-screen')).ListsScreen,
            }),
          },
          {
            path: 'lists/:listId',
            lazy: async () => ({
              Component: (await import('./routes/list-route')).ListRoute,
            }),
          },
          {
            path: 'lists/:listId/tasks/:taskId',
            lazy: async () => ({
              Component: (await import('./routes/task-route')).TaskRoute,
            }),
          },
          {
            path: 'lists/:listId/members',
            lazy: async () => ({
              Component: (await import('@/features/members/components/members-screen'))
                .MembersScreen,
            }),
          },
          {
            path: 'settings',
            lazy: async () => ({
              Component: (await import('@/features/settings/components/settings-screen'))
                .SettingsScreen,
            }),
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];
