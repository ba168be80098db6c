// What a screen shows if it crashes: a way back, never a blank page. Data is safe in the
// device database whatever happened here. Reset on navigation (keyed by path in the layout).
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  error: Error | null;
}

export class RouteErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('[outpost] screen crashed', error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <section className="screen screen--narrow" role="alert">
        <h1>Something went wrong</h1>
        <p>This screen hit an error. Your data is safe on this device.</p>
        <pre className="route-error__detail">{error.message}</pre>
        <p>
          <a href="/lists" className="btn btn--primary">
            Back to your lists
          </a>{' '}
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
}
