// Lazily loaded screens: code already here renders in the same commit (never a fallback
// frame, so React's Suspense reveal throttle never applies); code on its way suspends and
// renders when it arrives; a failed load reaches the error boundary and is tried again.
import { act, render, screen } from '@testing-library/react';
import { Component, Suspense, type ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.useRealTimers();
});

import { LOAD_RETRY_AFTER_MS, lazyScreen, type LazyScreen } from './lazy-screen';

class Boundary extends Component<{ children: ReactNode }, { error: string | null }> {
  override state = { error: null as string | null };
  static getDerivedStateFromError(error: Error) {
    return { error: error.message };
  }
  override render() {
    return this.state.error ? <p>failed: {this.state.error}</p> : this.props.children;
  }
}

function renderScreen(Screen: LazyScreen<object>) {
  return render(
    <Boundary>
      <Suspense fallback={<p>loading</p>}>
        <Screen />
      </Suspense>
    </Boundary>,
  );
}

describe('lazyScreen', () => {
  it('renders preloaded code at once, without a fallback', async () => {
    const Screen = lazyScreen(() => Promise.resolve(() => <p>ready</p>));
    await Screen.preload();
    renderScreen(Screen);
    expect(screen.getByText('ready')).toBeInTheDocument();
    expect(screen.queryByText('loading')).toBeNull();
  });

  it('suspends while the code is on its way, then renders it', async () => {
    let arrive!: () => void;
    const gate = new Promise<void>((resolve) => (arrive = resolve));
    const Screen = lazyScreen(() => gate.then(() => () => <p>arrived</p>));
    renderScreen(Screen);
    expect(screen.getByText('loading')).toBeInTheDocument();
    await act(() => {
      arrive();
      return gate;
    });
    expect(await screen.findByText('arrived')).toBeInTheDocument();
  });

  it('shows a failed load to the error boundary and loads again when opened later', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let attempts = 0;
    const Screen = lazyScreen(() => {
      attempts += 1;
      return attempts === 1
        ? Promise.reject(new Error('chunk missing'))
        : Promise.resolve(() => <p>second try</p>);
    });
    const first = renderScreen(Screen);
    // The rejection reaches React outside any interaction: let React's test mode flush it.
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(await screen.findByText('failed: chunk missing')).toBeInTheDocument();
    first.unmount();
    vi.setSystemTime(Date.now() + LOAD_RETRY_AFTER_MS + 1);
    renderScreen(Screen);
    expect(await screen.findByText('second try')).toBeInTheDocument();
    expect(attempts).toBe(2);
  });
});
