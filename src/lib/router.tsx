// The app's routing: wouter (about 3 kB gzip in the app shell, where React Router took 16 kB:
// issue 16), and the few helpers the screens need beyond it: the location as one object
// (path, query, hash, history state), navigation by path, a link that marks the current
// page (aria-current), and the params of a path prefix. The browser's own location is the
// router's (tests set it with history.replaceState; jsdom has one too).
import { useMemo, type AnchorHTMLAttributes, type ReactNode } from 'react';
import {
  Link,
  matchRoute,
  useLocation as useWouterLocation,
  useRouter,
  useSearch,
  type useSearchParams,
} from 'wouter';
import { useHistoryState, useLocationProperty } from 'wouter/use-browser-location';

export { Link, Redirect, Route, Switch, useParams, useSearchParams } from 'wouter';

/** Where the app is. */
export interface AppLocation {
  pathname: string;
  /** "" or "?…". */
  search: string;
  /** "" or "#…". */
  hash: string;
  /** What the navigation here carried (history.state), or null. */
  state: unknown;
}

const currentHash = () => window.location.hash;

export function useLocation(): AppLocation {
  const [pathname] = useWouterLocation();
  const search = useSearch();
  const hash = useLocationProperty(currentHash);
  const state: unknown = useHistoryState();
  return useMemo(
    () => ({ pathname, search: search ? `?${search}` : '', hash, state }),
    [pathname, search, hash, state],
  );
}

export interface NavigateOptions {
  replace?: boolean;
  /** Kept in history.state for the page navigated to (useLocation().state). */
  state?: unknown;
}

export type NavigateFunction = (to: string, options?: NavigateOptions) => void;

/** Goes to `to` (a path, with its query and hash), as a link would. */
export function useNavigate(): NavigateFunction {
  const [, navigate] = useWouterLocation();
  return navigate;
}

/** The setter useSearchParams() gives. */
export type SetSearchParams = ReturnType<typeof useSearchParams>[1];

/**
 * Takes `name` out of the query, replacing the history entry: for a one-shot parameter
 * (`?new=…`) that a screen acts on once and that Back must not bring back.
 */
export function dropSearchParam(setParams: SetSearchParams, name: string): void {
  setParams(
    (prev) => {
      const next = new URLSearchParams(prev);
      next.delete(name);
      return next;
    },
    { replace: true },
  );
}

/**
 * The params of `pattern` when the current path is it or a path below it
 * (`/lists/:listId` on `/lists/1/tasks/2`), else null.
 */
export function usePathPrefix(pattern: string): Record<string, string | undefined> | null {
  const { parser } = useRouter();
  const [pathname] = useWouterLocation();
  const [matches, params] = matchRoute(parser, pattern, pathname, true);
  return matches ? params : null;
}

type NavLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & {
  to: string;
  /** Current only on `to` itself, not on the paths below it. */
  end?: boolean;
  children?: ReactNode;
};

/** A link that says when it leads to the current page (aria-current="page"). */
export function NavLink({ to, end = false, ...props }: NavLinkProps) {
  const [pathname] = useWouterLocation();
  const current = pathname === to || (!end && pathname.startsWith(`${to}/`));
  return <Link to={to} aria-current={current ? 'page' : undefined} {...props} />;
}
