// What a screen shows if it crashes: a way back, never a blank page. Data is safe in the
// device database whatever happened here.
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';

export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : 'Unknown error';
  return (
    <section className="screen screen--narrow" role="alert">
      <h1>Something went wrong</h1>
      <p>This screen hit an error. Your data is safe on this device.</p>
      <pre className="route-error__detail">{message}</pre>
      <p>
        <Link to="/lists" className="btn btn--primary">
          Back to your lists
        </Link>{' '}
        <button
          type="button"
          className="btn btn--secondary"
          onClick={() => window.location.reload()}
        >
          Reload
        </button>
      </p>
    </section>
  );
}
