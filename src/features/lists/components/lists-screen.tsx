// /lists — every list on this device with counts, members and sync state, and "New list".
// The manifest's "New task" shortcut lands here as ?new=task and goes on to the list the
// user touched last, with its quick-add field focused; the command palette's "New list" as
// ?new=list, which focuses the name field.
import { useEffect, useRef } from 'react';
import { Navigate, useSearchParams } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { useShortcut } from '@/hooks/use-shortcut';
import { useSession } from '@/lib/session';

import '../lists.css';
import { useListsOverview } from '../hooks/use-lists-overview';
import { CreateListForm } from './create-list-form';
import { ListCard } from './list-card';

export function ListsScreen() {
  const lists = useListsOverview();
  const { mode } = useSession();
  const [params, setParams] = useSearchParams();
  const nameInput = useRef<HTMLInputElement>(null);
  const wantsNewTask = params.get('new') === 'task';
  useShortcut('n', () => nameInput.current?.focus());

  useEffect(() => {
    if (wantsNewTask && lists?.length === 0) nameInput.current?.focus();
  }, [wantsNewTask, lists]);

  const wantsNewList = params.get('new') === 'list';
  useEffect(() => {
    if (!wantsNewList) return;
    nameInput.current?.focus();
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('new');
        return next;
      },
      { replace: true },
    );
  }, [wantsNewList, setParams]);

  if (wantsNewTask && lists && lists.length > 0) {
    const latest = [...lists].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
    if (latest?.myRole !== 'viewer' && latest) {
      return <Navigate to={`/lists/${latest.id}?new=1`} replace />;
    }
  }

  return (
    <section className="screen lists-screen">
      <h1>Lists</h1>
      <div className="lists-screen__layout">
        <div className="lists-screen__lists">
          {lists === undefined ? null : lists.length === 0 ? (
            <EmptyState title="No lists yet">
              <p>Create your first list. It works offline and syncs when you&apos;re online.</p>
            </EmptyState>
          ) : (
            <ul className="lists-screen__grid" aria-label="Your lists">
              {lists.map((list) => (
                <ListCard key={list.id} list={list} mode={mode} />
              ))}
            </ul>
          )}
        </div>
        <CreateListForm inputRef={nameInput} />
      </div>
    </section>
  );
}
