// At most three toasts show, and an Undo is never pushed off the screen by a toast that has
// nothing to lose (a plain message, or a link to somewhere the same thing can be found): the
// plain message waits for a place instead. A newer Undo may replace an older one.
import { beforeEach, describe, expect, it } from 'vitest';

import { TOASTS_SHOWN_MAX, useToasts, type ToastAction } from './toasts';

const undo: ToastAction = { label: 'Undo', run: () => undefined };
const link: ToastAction = { label: 'See why', run: () => undefined, alsoElsewhere: true };

const show = (message: string, action?: ToastAction) =>
  useToasts.getState().show(action ? { message, action } : { message });

/** The messages on screen, oldest first. */
const onScreen = () =>
  useToasts
    .getState()
    .toasts.slice(0, TOASTS_SHOWN_MAX)
    .map((toast) => toast.message);

beforeEach(() => {
  useToasts.setState({ toasts: [] });
});

describe('toasts', () => {
  it('keeps an Undo on screen while plain toasts come and go', () => {
    show('Deleted “Fix the door”', undo);
    for (const message of ['Link copied', 'Saved', 'Task completed', 'Another']) show(message);
    expect(onScreen()).toEqual(['Deleted “Fix the door”', 'Task completed', 'Another']);
  });

  it('lets a plain toast wait while every place holds an Undo, and shows it when one goes', () => {
    const first = show('Deleted A', undo);
    show('Deleted B', undo);
    show('Deleted C', undo);
    show('3 changes were refused and undone.', link);
    expect(onScreen()).toEqual(['Deleted A', 'Deleted B', 'Deleted C']);
    useToasts.getState().dismiss(first);
    expect(onScreen()).toEqual(['Deleted B', 'Deleted C', '3 changes were refused and undone.']);
  });

  it('makes room for a new Undo: first a toast without one, then the oldest Undo', () => {
    show('Deleted A', undo);
    show('Link copied');
    show('Deleted B', undo);
    show('Deleted C', undo);
    expect(onScreen()).toEqual(['Deleted A', 'Deleted B', 'Deleted C']);
    show('Deleted D', undo);
    expect(onScreen()).toEqual(['Deleted B', 'Deleted C', 'Deleted D']);
  });

  it('puts a new Undo on screen ahead of toasts that are waiting', () => {
    show('Deleted A', undo);
    show('Deleted B', undo);
    show('Deleted C', undo);
    show('Waiting');
    show('Deleted D', undo);
    expect(onScreen()).toEqual(['Deleted B', 'Deleted C', 'Deleted D']);
    expect(useToasts.getState().toasts.map((t) => t.message)).toContain('Waiting');
  });

  it('changes a toast in place and says when it has already gone', () => {
    const id = show('1 change was refused and undone.', link);
    const before = useToasts.getState().toasts[0]?.revision ?? -1;
    expect(useToasts.getState().update(id, { message: '2 changes were refused and undone.' })).toBe(
      true,
    );
    const after = useToasts.getState().toasts[0];
    expect(after?.message).toBe('2 changes were refused and undone.');
    expect(after?.revision).toBe(before + 1);
    useToasts.getState().dismiss(id);
    expect(useToasts.getState().update(id, { message: 'gone' })).toBe(false);
  });
});
