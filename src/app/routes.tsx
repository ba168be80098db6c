// The routes of SPEC §2, in React Router's declarative mode: the app needs no loaders or
// actions (screens read the device database), and the data router would add ~16 kB gzip to
// the app shell. Screens are loaded on first use (each its own chunk, all precached by the
// service worker, so they open offline); the frame and the session gate are in the shell.
// Features never import each other: screens made of several features are put together here
// (src/app/routes/).
import { lazy } from 'react';
import { Navigate, Route, Routes } from 'react-router';

import { AppLayout } from './layout';
import { NotFound } from './not-found';
import { RequireSession } from './require-session';

const WelcomeScreen = lazy(() =>
  import('@/features/account/components/welcome-screen').then((m) => ({
    default: m.WelcomeScreen,
  })),
);
const SignInScreen = lazy(() =>
  import('@/features/account/components/sign-in-screen').then((m) => ({ default: m.SignInScreen })),
);
const SignUpScreen = lazy(() =>
  import('@/features/account/components/sign-up-screen').then((m) => ({ default: m.SignUpScreen })),
);
const InviteScreen = lazy(() =>
  import('@/features/members/components/invite-screen').then((m) => ({ default: m.InviteScreen })),
);
const ListsScreen = lazy(() =>
  import('@/features/lists/components/lists-screen').then((m) => ({ default: m.ListsScreen })),
);
const ListRoute = lazy(() => import('./routes/list-route').then((m) => ({ default: m.ListRoute })));
const TaskRoute = lazy(() => import('./routes/task-route').then((m) => ({ default: m.TaskRoute })));
const MembersScreen = lazy(() =>
  import('@/features/members/components/members-screen').then((m) => ({
    default: m.MembersScreen,
  })),
);
const SettingsScreen = lazy(() =>
  import('@/features/settings/components/settings-screen').then((m) => ({
    default: m.SettingsScreen,
  })),
);

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route index element={<Navigate to="/lists" replace />} />
        <Route path="welcome" element={<WelcomeScreen />} />
        <Route path="sign-in" element={<SignInScreen />} />
        <Route path="sign-up" element={<SignUpScreen />} />
        <Route path="invite/:token" element={<InviteScreen />} />
        <Route element={<RequireSession />}>
          <Route path="lists" element={<ListsScreen />} />
          <Route path="lists/:listId" element={<ListRoute />} />
          <Route path="lists/:listId/tasks/:taskId" element={<TaskRoute />} />
          <Route path="lists/:listId/members" element={<MembersScreen />} />
          <Route path="settings" element={<SettingsScreen />} />
        </Route>
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
